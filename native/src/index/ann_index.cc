#include "index/ann_index.h"

#include "index/hnsw_index.h"
#include "index/ivf_index.h"
#include "index/quantized_scan.h"
#include "storage/file_names.h"

namespace tessera {
namespace {

std::string CodesPath(const std::string& dir, uint64_t segment, QuantizationKind kind) {
  return SegmentCodesPath(dir, segment, kind == QuantizationKind::kInt8 ? "q8" : "qb");
}

// Opens the saved parts (pool shares their checksums); with build, builds (and saves) what is missing
// on pool until build is cancelled.
SegmentVectorIndexes Resolve(const std::string& dir, const Segment& segment, const VectorIndexConfig& config, ThreadPool& pool,
                             const CancelToken* build, IndexPart reuse_ann) {
  SegmentVectorIndexes out;
  QuantizedCodesPtr codes;
  if (config.quantization) {
    QuantizationKind kind = config.quantization->kind;
    std::string path = dir.empty() ? "" : CodesPath(dir, segment.id(), kind);
    if (!path.empty()) codes = QuantizedCodes::Open(path, segment, config.metric, kind, config.mmap, &pool);
    if (!codes && build) {
      codes = QuantizedCodes::Build(segment, config.metric, kind);
      if (!path.empty()) codes->Save(path);
    }
    if (!codes) return out;
    out.first_pass = std::make_shared<QuantizedScan>(codes);
  }
  if (config.ann && config.ann->kind == AnnKind::kIvf) {
    std::string path = dir.empty() ? "" : SegmentIvfPath(dir, segment.id());
    if (!path.empty()) out.ann = IvfIndex::Open(path, segment, config.metric, *config.ann, codes, config.mmap, &pool);
    if (!out.ann && build) out.ann = IvfIndex::Build(path, segment, config.metric, *config.ann, codes, pool, *build);
    if (!out.ann) return out;
  } else if (config.ann) {
    std::string path = dir.empty() ? "" : SegmentHnswPath(dir, segment.id());
    if (!path.empty()) out.ann = HnswIndex::Open(path, segment, config.metric, *config.ann, codes, config.mmap, &pool);
    if (!out.ann && build) {
      std::shared_ptr<const HnswIndex> built = HnswIndex::Build(path, segment, config.metric, *config.ann, codes, pool, *build, reuse_ann);
      out.reused_graph_rows = built->graph().reused_rows();
      out.inserted_graph_rows = uint32_t(segment.appended()) - out.reused_graph_rows;
      out.ann = std::move(built);
    }
    if (!out.ann) return out;
  }
  out.complete = true;
  return out;
}

}  // namespace

SegmentVectorIndexes OpenSegmentVectorIndexes(const std::string& dir, const Segment& segment, const VectorIndexConfig& config,
                                              ThreadPool& pool) {
  return Resolve(dir, segment, config, pool, nullptr, {});
}

SegmentVectorIndexes BuildSegmentVectorIndexes(const std::string& dir, const Segment& segment, const VectorIndexConfig& config,
                                               ThreadPool& pool, const CancelToken& stop, IndexPart reuse_ann) {
  SegmentVectorIndexes built = Resolve(dir, segment, config, pool, &stop, reuse_ann);
  segment.ReleaseMappedRows(0, segment.capacity());
  return built;
}

}  // namespace tessera
