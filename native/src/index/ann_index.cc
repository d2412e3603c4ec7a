#include "index/ann_index.h"

#include "index/hnsw_index.h"
#include "index/ivf_index.h"
#include "storage/file_names.h"

namespace tessera {

std::string AnnIndexPath(const std::string& dir, uint64_t segment, const AnnConfig& config) {
  return config.kind == AnnKind::kIvf ? SegmentIvfPath(dir, segment) : SegmentHnswPath(dir, segment);
}

VectorIndexPtr OpenAnnIndex(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config, bool mmap) {
  if (config.kind == AnnKind::kIvf) return IvfIndex::Open(path, segment, metric, config, mmap);
  return HnswIndex::Open(path, segment, metric, config, mmap);
}

VectorIndexPtr BuildAnnIndex(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config, ThreadPool& pool,
                             const CancelToken& stop) {
  if (config.kind == AnnKind::kIvf) return IvfIndex::Build(path, segment, metric, config, pool, stop);
  return HnswIndex::Build(path, segment, metric, config, pool, stop);
}

}  // namespace tessera
