#include "index/hnsw_index.h"

#include <algorithm>
#include <variant>

#include "index/f32_space.h"
#include "index/flat_index.h"
#include "index/quantized_scan.h"
#include "index/rescore.h"
#include "util/clock.h"

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

// Lets into the walk's results the rows the query may return, counting what it turns away.
class QueryAdmission final : public WalkAdmission {
 public:
  QueryAdmission(const RowRange& rows, const RowFilter& admit, SearchTrace& trace) : rows_(rows), admit_(admit), trace_(trace) {}

  // min_score is not checked here: it orders like the distance, so the walk's nearest rows hold
  // every row above it, and a floor inside the walk would only keep it from ending.
  bool Admit(uint32_t row, float) override {
    ++trace_.surfaced;
    if (!admit_.Visible(row)) return Drop(trace_.dropped_stale);
    if (!rows_.Contains(row) || !admit_.Passes(row)) return Drop(trace_.dropped_filtered);
    if (admit_.Excluded(row)) return Drop(trace_.dropped_out_of_scope);
    return true;
  }

 private:
  static bool Drop(uint64_t& counter) {
    ++counter;
    return false;
  }
  const RowRange& rows_;
  const RowFilter& admit_;
  SearchTrace& trace_;
};

}  // namespace

std::shared_ptr<const HnswIndex> HnswIndex::Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                 QuantizedCodesPtr codes, bool mmap) {
  GraphSpace space(segment, metric, codes);
  std::shared_ptr<const HnswGraph> graph = HnswGraph::Open(path, space.get(), ParamsOf(config), mmap);
  if (graph == nullptr) return nullptr;
  return std::shared_ptr<const HnswIndex>(new HnswIndex(std::move(graph), metric, std::move(codes)));
}

std::shared_ptr<const HnswIndex> HnswIndex::Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                  QuantizedCodesPtr codes, ThreadPool& pool, const CancelToken& stop) {
  GraphSpace space(segment, metric, codes);
  std::shared_ptr<const HnswGraph> graph = HnswGraph::Build(space.get(), ParamsOf(config), pool, stop);
  if (!path.empty()) graph->Save(path);
  return std::shared_ptr<const HnswIndex>(new HnswIndex(std::move(graph), metric, std::move(codes)));
}

bool HnswIndex::ScanIsCheaper(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit) const {
  double total = std::max<uint32_t>(1, segment.appended());
  double matching = 0;
  if (rows.narrowed != nullptr) {
    matching = double(rows.size());
  } else {
    // Sample evenly spaced rows: a few hundred filter checks against a walk of thousands of distances.
    constexpr uint32_t kSample = 256;
    uint32_t step = std::max<uint32_t>(1, uint32_t(total / kSample)), sampled = 0, passed = 0;
    for (uint32_t r = 0; r < segment.appended(); r += step, ++sampled) passed += admit.Passes(r);
    matching = total * passed / std::max<uint32_t>(1, sampled);
  }
  if (matching < 1) return true;
  // A walk computes about ef x 2M distances per admitted result set, divided by the fraction of
  // rows it may admit; a scan computes one per row it visits.
  double walk = double(query.ef) * 2 * graph_->m() * total / matching;
  double scan = rows.narrowed != nullptr ? matching : total;
  return scan <= walk;
}

void HnswIndex::Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                       const CancelToken& cancel, SearchTrace& trace) const {
  uint64_t start = NowNanos();
  auto scan_exactly = [&] {
    ++trace.fallbacks;
    uint64_t scan_start = NowNanos();
    FlatIndex::Shared()->Search(segment, query, rows, admit, sink, cancel, trace);
    trace.scan_ns += NowNanos() - scan_start;
  };
  if ((admit.filtered() || rows.narrowed != nullptr) && ScanIsCheaper(segment, query, rows, admit)) return scan_exactly();
  GraphSpace space(segment, metric_, codes_);
  QuantizedQuery prepared;
  const void* walk_query = query.vector;
  uint32_t ef = query.ef;
  if (codes_) {
    prepared = codes_->Prepare(query.vector);
    walk_query = &prepared;
    // Every row the walk returns is rescored: window x rescore of them, twice that for Binary,
    // whose estimates rank a walk's neighbourhood too coarsely to cut it to the window x rescore best.
    size_t rescored = size_t(query.window) * query.rescore * (codes_->kind() == QuantizationKind::kBinary ? 2 : 1);
    ef = uint32_t(std::max<size_t>(ef, rescored));
  }
  QueryAdmission admission(rows, admit, trace);
  std::vector<Neighbor> found = graph_->Search(space.get(), walk_query, ef, admission, cancel);
  trace.walk_ns += NowNanos() - start;
  // Fewer rows than the window while more may match: the walk starved (deleted or filtered rows
  // cut it off), and only the scan can promise every row that qualifies.
  if (found.size() < query.window && found.size() < graph_->nodes()) return scan_exactly();
  ++trace.walks;
  if (codes_) return RescoreBest(segment, query, found, found.size(), sink, trace);
  for (const Neighbor& n : found) OfferScore(query, n.row, -n.distance, sink, trace);
}

}  // namespace tessera
