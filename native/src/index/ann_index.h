// What a store derives from a sealed segment's vectors under its configuration, whatever the
// kinds: quantized codes with their first pass, and the approximate index. Saved beside the
// segment's files, opened (mmap'd) when saved, built otherwise.
#pragma once
#include <optional>
#include <string>

#include "index/quantized_codes.h"
#include "index/vector_index.h"
#include "tessera/options.h"
#include "util/thread_pool.h"

namespace tessera {

struct SegmentVectorIndexes {
  VectorIndexPtr first_pass;         // the quantized scan; null without quantization
  VectorIndexPtr ann;                // null without ANN
  bool complete = false;             // every part the configuration asks for is here
  uint32_t reused_graph_rows = 0;    // rows a new HNSW graph took over from a reused one (BuildSegmentVectorIndexes)
  uint32_t inserted_graph_rows = 0;  // rows a new HNSW graph inserted (the others were taken over)
};

struct VectorIndexConfig {
  Metric metric;
  std::optional<AnnConfig> ann;
  std::optional<QuantizationConfig> quantization;
  bool mmap = true;

  bool any() const { return ann || quantization; }
};

// The parts saved in dir for segment (dir empty: none), their checksums shared out over pool.
SegmentVectorIndexes OpenSegmentVectorIndexes(const std::string& dir, const Segment& segment, const VectorIndexConfig& config,
                                              ThreadPool& pool);

// Opens what is saved and builds (and saves, when dir is not empty) the rest. Throws
// Error(kCancelled) once stop is cancelled. reuse_ann: an approximate index over some of segment's
// rows, whose graph a new HNSW graph takes over.
SegmentVectorIndexes BuildSegmentVectorIndexes(const std::string& dir, const Segment& segment, const VectorIndexConfig& config,
                                               ThreadPool& pool, const CancelToken& stop, IndexPart reuse_ann = {});

}  // namespace tessera
