#include "index/hnsw_index.h"

#include <algorithm>
#include <chrono>

#include "index/flat_index.h"
#include "tessera/kernels.h"

namespace tessera {
namespace {

// A segment's f32 rows under the store's metric: squared L2 for Euclidean, the negated dot
// product otherwise (Cosine rows are stored normalized), so smaller is closer and score = -distance.
class F32Space final : public VectorSpace {
 public:
  F32Space(const Segment& segment, Metric metric)
      : segment_(segment), euclidean_(metric == Metric::kEuclidean), kernels_(ActiveKernels()) {}

  void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const override {
    const float* q = static_cast<const float*>(query);
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(segment_.vector(rows[i]));
    for (size_t i = 0; i < n; ++i) {
      const float* v = segment_.vector(rows[i]);
      out[i] = euclidean_ ? kernels_.l2sq(q, v, segment_.dim()) : -kernels_.dot(q, v, segment_.dim());
    }
  }
  void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const override {
    Distances(segment_.vector(from), rows, n, out);
  }
  bool Present(uint32_t row) const override { return segment_.has_vector(row); }
  uint32_t rows() const override { return segment_.appended(); }
  uint32_t kind() const override { return euclidean_ ? 1 : 2; }

 private:
  const Segment& segment_;
  bool euclidean_;
  const Kernels& kernels_;
};

HnswParams ParamsOf(const AnnConfig& config) { return HnswParams{config.m, config.ef_construction, config.seed}; }

// Lets into the walk's results the rows the query may return, counting what it turns away.
class QueryAdmission final : public WalkAdmission {
 public:
  QueryAdmission(const RowRange& rows, const RowFilter& admit, double min_score, SearchTrace& trace)
      : rows_(rows), admit_(admit), min_score_(min_score), trace_(trace) {}

  bool Admit(uint32_t row, float distance) override {
    ++trace_.surfaced;
    if (!admit_.Visible(row)) return Drop(trace_.dropped_stale);
    if (!rows_.Contains(row) || !admit_.Passes(row)) return Drop(trace_.dropped_filtered);
    if (admit_.Excluded(row)) return Drop(trace_.dropped_out_of_scope);
    if (-distance < min_score_) return Drop(trace_.dropped_min_score);
    return true;
  }

 private:
  static bool Drop(uint64_t& counter) {
    ++counter;
    return false;
  }
  const RowRange& rows_;
  const RowFilter& admit_;
  double min_score_;
  SearchTrace& trace_;
};

uint64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

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
  auto start = std::chrono::steady_clock::now();
  auto scan_exactly = [&] {
    ++trace.fallbacks;
    FlatIndex::Shared()->Search(segment, query, rows, admit, sink, cancel, trace);
    trace.scan_ns += NanosSince(start);
  };
  if ((admit.filtered() || rows.narrowed != nullptr) && ScanIsCheaper(segment, query, rows, admit)) return scan_exactly();
  F32Space space(segment, metric_);
  QueryAdmission admission(rows, admit, query.min_score, trace);
  std::vector<Neighbor> found = graph_->Search(space, query.vector, query.ef, admission, cancel);
  // Fewer rows than the window while more may match: the walk starved (deleted or filtered rows
  // cut it off), and only the scan can promise every row that qualifies.
  if (found.size() < query.window && found.size() < graph_->nodes()) {
    trace.walk_ns += NanosSince(start);
    start = std::chrono::steady_clock::now();
    return scan_exactly();
  }
  ++trace.walks;
  trace.survived += found.size();
  for (const Neighbor& n : found) {
    float score = -n.distance;
    if (sink.Wants(score)) sink.Offer(n.row, score);
  }
  trace.walk_ns += NanosSince(start);
}

}  // namespace tessera
