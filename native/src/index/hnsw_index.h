// The HNSW vector index of one sealed segment: a graph over its f32 rows, walked with the query's
// row filter. A filter selective enough to starve the walk is answered by the exact scan instead,
// decided before the walk from the filter's estimated selectivity and again after it when the walk
// found fewer rows than the window needs.
#pragma once
#include <memory>
#include <string>

#include "index/hnsw_graph.h"
#include "index/vector_index.h"
#include "tessera/options.h"

namespace tessera {

class HnswIndex final : public VectorIndex {
 public:
  // The graph saved at path for segment, or nullptr when there is none usable (see HnswGraph::Open).
  static std::shared_ptr<const HnswIndex> Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                               bool mmap);
  // Builds the graph of segment's rows (path empty: kept in memory only, else saved there first).
  static std::shared_ptr<const HnswIndex> Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                ThreadPool& pool, const CancelToken& stop);

  void Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
              const CancelToken& cancel, SearchTrace& trace) const override;

  size_t bytes() const { return graph_->bytes(); }

 private:
  HnswIndex(std::shared_ptr<const HnswGraph> graph, Metric metric) : graph_(std::move(graph)), metric_(metric) {}

  std::shared_ptr<const HnswGraph> graph_;
  Metric metric_;
};

}  // namespace tessera
