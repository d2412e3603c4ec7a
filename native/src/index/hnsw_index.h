// The HNSW vector index of one sealed segment: a graph over its f32 rows, or over its quantized
// codes (then the best window x rescore rows the walk finds are rescored exactly), walked with the
// query's row filter. A filter selective enough to starve the walk is answered by the exact scan
// instead (index/ann_search, shared with IVF).
#pragma once
#include <memory>
#include <string>

#include "index/hnsw_graph.h"
#include "index/quantized_codes.h"
#include "index/vector_index.h"
#include "tessera/options.h"

namespace tessera {

class HnswIndex final : public VectorIndex {
 public:
  // The graph saved at path for segment, or nullptr when there is none usable (see HnswGraph::Open).
  // codes: the segment's quantized codes when the store runs with quantization, else null.
  static std::shared_ptr<const HnswIndex> Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                               QuantizedCodesPtr codes, bool mmap, ThreadPool* pool = nullptr);
  // Builds the graph of segment's rows (path empty: kept in memory only, else saved there first),
  // taking over the links of reuse's graph where it is an HNSW index that fits (HnswGraph::Build).
  static std::shared_ptr<const HnswIndex> Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                QuantizedCodesPtr codes, ThreadPool& pool, const CancelToken& stop, IndexPart reuse = {});

  void Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
              const CancelToken& cancel, SearchTrace& trace) const override;

  uint64_t BytesRead(const Segment& segment, uint32_t rows, const VectorQuery& query) const override;

  size_t bytes() const override { return graph_->bytes(); }
  const HnswGraph& graph() const { return *graph_; }

 private:
  // What a walk for query keeps (ef), rescores exactly, and about how many distances it computes.
  struct Walk {
    uint32_t ef;
    size_t rescored;
    bool binary;
    double distances = 0;
  };
  Walk WalkOf(const VectorQuery& query) const;

  HnswIndex(std::shared_ptr<const HnswGraph> graph, Metric metric, QuantizedCodesPtr codes)
      : graph_(std::move(graph)), metric_(metric), codes_(std::move(codes)) {}
  std::shared_ptr<const HnswGraph> graph_;
  Metric metric_;
  QuantizedCodesPtr codes_;
};

}  // namespace tessera
