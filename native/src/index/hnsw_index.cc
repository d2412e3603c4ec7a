#include "index/hnsw_index.h"

#include <algorithm>
#include <variant>

#include "index/ann_search.h"
#include "index/f32_space.h"
#include "index/quantized_scan.h"

namespace tessera {
namespace {

HnswParams ParamsOf(const AnnConfig& config) { return HnswParams{config.m, config.ef_construction, config.seed}; }

// The space a graph is built and walked in: the codes when there are some, else the f32 rows.
class GraphSpace {
 public:
  GraphSpace(const Segment& segment, Metric metric, const QuantizedCodesPtr& codes) {
    if (codes)
      space_.emplace<QuantizedSpace>(*codes, segment, metric);
    else
      space_.emplace<F32Space>(segment, metric);
  }
  const VectorSpace& get() const {
    return std::holds_alternative<F32Space>(space_) ? static_cast<const VectorSpace&>(std::get<F32Space>(space_))
                                                    : std::get<QuantizedSpace>(space_);
  }

 private:
  std::variant<std::monostate, F32Space, QuantizedSpace> space_;
};

// Lets into the walk's results the rows the query may return.
class QueryAdmission final : public WalkAdmission {
 public:
  explicit QueryAdmission(CandidateAdmission& admission) : admission_(admission) {}
  bool Admit(uint32_t row, float) override { return admission_.Admit(row); }
  bool Abandoned() const override { return admission_.over_budget(); }

 private:
  CandidateAdmission& admission_;
};

}  // namespace

std::shared_ptr<const HnswIndex> HnswIndex::Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                 QuantizedCodesPtr codes, bool mmap, ThreadPool* pool) {
  GraphSpace space(segment, metric, codes);
  std::shared_ptr<const HnswGraph> graph = HnswGraph::Open(path, space.get(), ParamsOf(config), mmap, pool);
  if (graph == nullptr) return nullptr;
  return std::shared_ptr<const HnswIndex>(new HnswIndex(std::move(graph), metric, std::move(codes)));
}

std::shared_ptr<const HnswIndex> HnswIndex::Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                  QuantizedCodesPtr codes, ThreadPool& pool, const CancelToken& stop, IndexPart reuse) {
  GraphSpace space(segment, metric, codes);
  const auto* part = dynamic_cast<const HnswIndex*>(reuse.index);
  std::shared_ptr<const HnswGraph> graph =
      HnswGraph::Build(space.get(), ParamsOf(config), pool, stop, {part ? part->graph_.get() : nullptr, reuse.first_row});
  if (!path.empty()) graph->Save(path);
  return std::shared_ptr<const HnswIndex>(new HnswIndex(std::move(graph), metric, std::move(codes)));
}

HnswIndex::Walk HnswIndex::WalkOf(const VectorQuery& query) const {
  Walk walk{query.ef, codes_ ? size_t(query.window) * query.rescore : 0, codes_ && codes_->kind() == QuantizationKind::kBinary};
  // Int8 estimates rank a neighbourhood almost as f32 does, so the walk keeps the query's ef and
  // the best window x rescore of what it finds are rescored. Binary estimates are too coarse for
  // that cut: its walk keeps twice window x rescore rows and every one is rescored.
  if (walk.binary) {
    walk.rescored *= 2;
    walk.ef = uint32_t(std::max<size_t>(walk.ef, walk.rescored));
  }
  // A walk computes about ef x 2M distances per result set.
  walk.distances = double(walk.ef) * 2 * graph_->m();
  return walk;
}

void HnswIndex::Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                       const CancelToken& cancel, SearchTrace& trace) const {
  Walk walk = WalkOf(query);
  SearchOrScan(segment, query, rows, admit, sink, cancel, trace, walk.distances, [&](CandidateAdmission& admission) {
    GraphSpace space(segment, metric_, codes_);
    QuantizedQuery prepared;
    if (codes_) prepared = codes_->Prepare(query.vector);
    QueryAdmission walk_admission(admission);
    std::vector<Neighbor> found =
        graph_->Search(space.get(), codes_ ? static_cast<const void*>(&prepared) : query.vector, walk.ef, walk_admission, cancel);
    // Only a walk that admitted every node is sure to have left none out.
    bool exhausted = found.size() >= graph_->nodes();
    size_t rescore = walk.binary ? found.size() : walk.rescored;
    return AnnFound{std::move(found), exhausted, rescore, admission.over_budget(), codes_ && !walk.binary};
  });
}

uint64_t HnswIndex::BytesRead(const Segment& segment, uint32_t rows, const VectorQuery& query) const {
  Walk walk = WalkOf(query);
  uint64_t f32_row = uint64_t(segment.dim()) * sizeof(float);
  uint64_t node = codes_ ? codes_->bytes() / std::max(1u, rows) : f32_row;
  double scored = std::min(walk.distances, double(graph_->nodes()));
  return uint64_t(scored) * node + walk.rescored * f32_row;
}

}  // namespace tessera
