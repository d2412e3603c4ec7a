#include "index/ivf_index.h"

#include <algorithm>

#include "index/ann_search.h"
#include "tessera/kernels.h"
#include "util/clock.h"

namespace tessera {
namespace {

// Rows ahead of the one scored whose vector is prefetched: lists point anywhere in the segment.
constexpr ptrdiff_t kPrefetchAhead = 8;

IvfParams ParamsOf(const AnnConfig& config) { return IvfParams{config.n_lists, config.seed}; }

}  // namespace

std::shared_ptr<const IvfIndex> IvfIndex::Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                               QuantizedCodesPtr codes, bool mmap, ThreadPool* pool) {
  std::shared_ptr<const IvfLists> lists = IvfLists::Open(path, segment, metric, ParamsOf(config), mmap, pool);
  if (lists == nullptr) return nullptr;
  return std::shared_ptr<const IvfIndex>(new IvfIndex(std::move(lists), metric, config.n_probe, std::move(codes)));
}

std::shared_ptr<const IvfIndex> IvfIndex::Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                                QuantizedCodesPtr codes, ThreadPool& pool, const CancelToken& stop) {
  std::shared_ptr<const IvfLists> lists = IvfLists::Build(segment, metric, ParamsOf(config), pool, stop);
  if (!path.empty()) lists->Save(path);
  return std::shared_ptr<const IvfIndex>(new IvfIndex(std::move(lists), metric, config.n_probe, std::move(codes)));
}

void IvfIndex::Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                      const CancelToken& cancel, SearchTrace& trace) const {
  // Scoring the centroids is index work even when the scan answers: it counts as walk time.
  uint64_t start = NowNanos();
  ProbePlan plan = Plan(query.vector);
  trace.walk_ns += NowNanos() - start;
  SearchOrScan(segment, query, rows, admit, sink, cancel, trace, double(plan.order.size() + plan.held),
               [&](CandidateAdmission& admission) { return Probe(segment, query, plan, rows.size(), admission, cancel); });
}

uint64_t IvfIndex::BytesRead(const Segment& segment, uint32_t segment_rows, const VectorQuery& query) const {
  uint64_t f32_row = uint64_t(segment.dim()) * sizeof(float), rows = segment_rows, lists = std::max(1u, n_lists());
  uint64_t row = codes_ ? codes_->bytes() / std::max<uint64_t>(1, rows) : f32_row;
  uint64_t probed = std::max<uint64_t>(query.ef, rows * std::min<uint64_t>(n_probe_, lists) / lists);
  return lists * f32_row + std::min(rows, probed) * row + (codes_ ? RescoreBytes(query) : 0);
}

IvfIndex::ProbePlan IvfIndex::Plan(const float* query) const {
  ProbePlan plan{lists_->ProbeOrder(query), 0};
  for (size_t i = 0; i < std::min<size_t>(n_probe_, plan.order.size()); ++i) plan.held += lists_->list(plan.order[i]).size();
  return plan;
}

AnnFound IvfIndex::Probe(const Segment& segment, const VectorQuery& query, const ProbePlan& plan, size_t scan_rows,
                         CandidateAdmission& admission, const CancelToken& cancel) const {
  const Kernels& kernels = ActiveKernels();
  bool euclidean = metric_ == Metric::kEuclidean;
  size_t wanted = std::max<size_t>(query.ef, plan.held), scored = 0, probed = 0;
  AnnFound found;
  QuantizedQuery prepared;
  if (codes_) prepared = codes_->Prepare(query.vector);
  for (; probed < plan.order.size(); ++probed) {
    if (probed >= n_probe_ && (found.admitted.size() >= wanted || scored >= scan_rows)) break;
    cancel.ThrowIfCancelled();
    IvfList list = lists_->list(plan.order[probed]);
    if (codes_) {
      constexpr size_t kBatch = 64;
      float distances[kBatch];
      for (const uint32_t* r = list.begin; r < list.end; r += kBatch) {
        size_t n = std::min<size_t>(kBatch, list.end - r);
        codes_->Distances(prepared, r, n, distances);
        for (size_t i = 0; i < n; ++i)
          if (admission.Admit(r[i])) found.admitted.push_back({distances[i], r[i]});
      }
    } else {
      for (const uint32_t* r = list.begin; r != list.end; ++r) {
        if (list.end - r > kPrefetchAhead) __builtin_prefetch(segment.vector(r[kPrefetchAhead]));
        const float* v = segment.vector(*r);
        float score = euclidean ? -kernels.l2sq(query.vector, v, segment.dim()) : kernels.dot(query.vector, v, segment.dim());
        if (admission.Admit(*r)) found.admitted.push_back({-score, *r});
      }
    }
    scored += list.size();
  }
  found.exhausted = probed == plan.order.size();
  if (codes_) {
    found.rescore = size_t(query.window) * query.rescore;
    found.prune = codes_->kind() == QuantizationKind::kInt8;
  }
  return found;
}

}  // namespace tessera
