#include "index/hnsw_index.h"

#include "index/ann_search.h"
#include "tessera/kernels.h"

namespace tessera {
namespace {

// A segment's f32 rows under the store's metric: squared L2 for Euclidean, the negated dot
// product otherwise (Cosine rows are stored normalized), so smaller is closer and score = -distance.
class F32Space final : public VectorSpace {
 public:
  F32Space(const Segment& segment, Metric metric)
      : segment_(segment), euclidean_(metric == Metric::kEuclidean), kernels_(ActiveKernels()) {}

  float Distance(const void* query, uint32_t row) const override {
    const float* q = static_cast<const float*>(query);
    return euclidean_ ? kernels_.l2sq(q, segment_.vector(row), segment_.dim()) : -kernels_.dot(q, segment_.vector(row), segment_.dim());
  }
  void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const override {
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(segment_.vector(rows[i]));
    for (size_t i = 0; i < n; ++i) out[i] = Distance(query, rows[i]);
  }
  const void* Row(uint32_t row) const override { return segment_.vector(row); }
  bool Present(uint32_t row) const override { return segment_.has_vector(row); }
  uint32_t rows() const override { return segment_.appended(); }
  uint32_t kind() const override { return euclidean_ ? 1 : 2; }

 private:
  const Segment& segment_;
  bool euclidean_;
  const Kernels& kernels_;
};

HnswParams ParamsOf(const AnnConfig& config) { return HnswParams{config.m, config.ef_construction, config.seed}; }

// Lets into the walk's results the rows the query may return.
class QueryAdmission final : public WalkAdmission {
 public:
  explicit QueryAdmission(CandidateAdmission& admission) : admission_(admission) {}
  bool Admit(uint32_t row, float distance) override { return admission_.Admit(row, -distance); }

 private:
  CandidateAdmission& admission_;
};

}  // namespace

std::shared_ptr<const HnswIndex> HnswIndex::Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                 bool mmap) {
  F32Space space(segment, metric);
  std::shared_ptr<const HnswGraph> graph = HnswGraph::Open(path, space, ParamsOf(config), mmap);
  if (graph == nullptr) return nullptr;
  return std::shared_ptr<const HnswIndex>(new HnswIndex(std::move(graph), metric));
}

std::shared_ptr<const HnswIndex> HnswIndex::Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                  ThreadPool& pool, const CancelToken& stop) {
  F32Space space(segment, metric);
  std::shared_ptr<const HnswGraph> graph = HnswGraph::Build(space, ParamsOf(config), pool, stop);
  if (!path.empty()) graph->Save(path);
  return std::shared_ptr<const HnswIndex>(new HnswIndex(std::move(graph), metric));
}

void HnswIndex::Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                       const CancelToken& cancel, SearchTrace& trace) const {
  // A walk computes about ef x 2M distances per result set.
  double walk_distances = double(query.ef) * 2 * graph_->m();
  SearchOrScan(segment, query, rows, admit, sink, cancel, trace, walk_distances, [&](CandidateAdmission& admission) {
    F32Space space(segment, metric_);
    QueryAdmission walk_admission(admission);
    std::vector<Neighbor> found = graph_->Search(space, query.vector, query.ef, walk_admission, cancel);
    // Only a walk that admitted every node is sure to have left none out.
    bool exhausted = found.size() >= graph_->nodes();
    return AnnFound{std::move(found), exhausted};
  });
}

}  // namespace tessera
