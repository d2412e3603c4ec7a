// The approximate index of one sealed segment under the store's AnnConfig, whatever its kind:
// where its file lives, opening a saved one, building a new one.
#pragma once
#include <string>

#include "index/vector_index.h"
#include "tessera/options.h"
#include "util/thread_pool.h"

namespace tessera {

// The index file of segment for config's kind (seg-N.hnsw, seg-N.ivf).
std::string AnnIndexPath(const std::string& dir, uint64_t segment, const AnnConfig& config);

// The saved index, or nullptr when there is none usable for this segment and config.
VectorIndexPtr OpenAnnIndex(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config, bool mmap);

// Builds the index over segment's rows and saves it at path (empty: memory only). Throws
// Error(kCancelled) once stop is cancelled.
VectorIndexPtr BuildAnnIndex(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config, ThreadPool& pool,
                             const CancelToken& stop);

}  // namespace tessera
