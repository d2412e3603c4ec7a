#include "index/ann_index.h"

#include "index/hnsw_index.h"
#include "storage/file_names.h"

namespace tessera {

std::string AnnIndexPath(const std::string& dir, uint64_t segment, const AnnConfig& config) {
  (void)config;
  return SegmentHnswPath(dir, segment);
}

VectorIndexPtr OpenAnnIndex(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config, bool mmap) {
  return HnswIndex::Open(path, segment, metric, config, mmap);
}

VectorIndexPtr BuildAnnIndex(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config, ThreadPool& pool,
                             const CancelToken& stop) {
  return HnswIndex::Build(path, segment, metric, config, pool, stop);
}

}  // namespace tessera
