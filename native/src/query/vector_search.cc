#include "query/vector_search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <optional>

#include "query/candidate_collector.h"
#include "query/expand.h"
#include "query/hit_writer.h"
#include "query/live_rows.h"
#include "query/query_plan.h"
#include "query/ranking.h"
#include "query/scan.h"
#include "tessera/error.h"

namespace tessera {
namespace {

// The /search/similar source record, excluded from its own results by identity.
struct Exclusion {
  std::string collection;
  std::string id;
};

void CheckNames(const std::vector<const CollectionState*>& scope, const SearchParams& p) {
  for (const std::string& name : p.names) {
    if (name == "default") continue;
    bool declared = std::any_of(scope.begin(), scope.end(), [&](const CollectionState* c) {
      const std::vector<std::string>& names = c->schema->vector_names;
      return std::find(names.begin(), names.end(), name) != names.end();
    });
    if (!declared) throw BadRequest("names: vector '" + name + "' is not declared in any collection in scope");
  }
}

VectorQuery QueryOf(const SearchParams& p, Metric metric) {
  VectorQuery q;
  q.vector = p.query.data();
  q.dim = uint32_t(p.query.size());
  q.euclidean = metric == Metric::kEuclidean;
  for (const std::string& n : p.names) {
    auto w = p.name_weights.find(n);
    q.names.emplace_back(n, w == p.name_weights.end() ? 1.0f : w->second);
  }
  q.sum_pool = p.pool == Pool::kSum;
  return q;
}

// The walk's candidate list: ef_search, widened to overscan x the window for deep pages.
uint32_t EfOf(const AnnConfig& ann, size_t window) { return uint32_t(std::max<size_t>(ann.ef_search, size_t(ann.overscan) * window)); }

// The spec's path names: every segment walked (ann, or ann_prefilter_fallback when a selective
// filter made a walk scan instead, and whenever no walk ran at all), walks beside scans
// (segmented), scans ranked by codes first (quantized), or exact scans alone (exact).
const char* PathOf(const SearchTrace& trace, bool any_walk_task, bool any_scan_task) {
  if (!any_walk_task) return trace.quantized_passes > 0 ? "quantized" : "exact";
  if (trace.walks == 0) return "ann_prefilter_fallback";
  if (any_scan_task) return "segmented";
  return trace.fallbacks > 0 ? "ann_prefilter_fallback" : "ann";
}

RankedSearch Rank(const QueryContext& ctx, const SearchParams& p, const std::vector<std::string>& scope_names, const Exclusion* exclude) {
  uint64_t start = NowNanos();
  RankedSearch result;
  result.scope = ResolveScope(ctx.snap, scope_names);
  CheckNames(result.scope, p);
  size_t window = RankWindow(p);
  auto [query, approximate] = SegmentQueryOf(p, ctx.metric, ctx.ann, ctx.quantization);
  ScanPlan plan(result.scope, ctx.pool.size(), p.filter, approximate);
  result.plan.narrowing = plan.narrowing();
  result.plan.narrow_ns = NowNanos() - start;
  std::vector<std::vector<Candidate>> found(plan.tasks().size());
  std::vector<SearchTrace> traces(plan.tasks().size());
  // Any full task window's lowest score bounds the final window from below, so tasks share the
  // highest such floor and skip rows under it before the filter or attributes are read.
  std::atomic<float> shared_floor{-INFINITY};
  ctx.pool.ParallelFor(plan.tasks().size(), [&](size_t t) {
    const ScanTask& task = plan.tasks()[t];
    const Segment& seg = *task.ref->segment;
    std::optional<std::string_view> excluded;
    if (exclude && result.scope[task.scope_index]->name == exclude->collection) excluded = exclude->id;
    RowFilter admit(seg, ctx.snap.version, task.ref->deleted_rows, p.filter, excluded);
    CandidateCollector collector(window, task.scope_index, seg, p, &shared_floor);
    uint64_t task_start = NowNanos();
    task.index().Search(seg, query, plan.Rows(task), admit, collector, ctx.cancel, traces[t]);
    if (task.method == ScanTask::kScan) traces[t].scan_ns += NowNanos() - task_start;
    found[t] = collector.Take();
  });
  bool any_walk = false, any_scan = false;
  for (size_t t = 0; t < traces.size(); ++t) {
    result.plan.trace.Add(traces[t]);
    (plan.tasks()[t].method == ScanTask::kWalk ? any_walk : any_scan) = true;
  }
  result.plan.path = PathOf(result.plan.trace, any_walk, any_scan);
  uint64_t resolve_start = NowNanos();
  for (auto& f : found) result.ranked.insert(result.ranked.end(), f.begin(), f.end());
  std::sort(result.ranked.begin(), result.ranked.end(), RanksBefore);
  if (result.ranked.size() > window) result.ranked.resize(window);
  ApplyRankPasses(result.ranked, p, query.dim);
  result.plan.resolve_ns = NowNanos() - resolve_start;
  result.plan.total_ns = NowNanos() - start;
  ctx.cancel.set_plan(ShortPlanOf(result.plan));
  return result;
}

// The page p asks for, its hits expanded as p asks (a batch leg's: no plan).
void WriteRanked(const QueryContext& ctx, JsonWriter& w, const RankedSearch& r, const SearchParams& p) {
  std::vector<std::string_view> names = ScopeNames(r.scope);
  WriteHits(w, r.ranked, p.offset, p.top_k, names, p.projection, {nullptr, ExpandPage(ctx, p.expand, r.ranked, p.offset, p.top_k, names)});
}

RankedPage PageOf(RankedSearch r) {
  RankedPage page;
  page.names = ScopeNames(r.scope);
  page.ranked = std::move(r.ranked);
  page.plan = std::move(r.plan);
  return page;
}

// Reciprocal rank fusion over each leg's page, ranks 1-based: score = sum of w / (rrf_k + rank).
// Fused candidates share a collection index by collection name; names views the snapshot's.
std::vector<Candidate> Fuse(const std::vector<RankedSearch>& legs, const BatchParams& batch, std::vector<std::string_view>* names) {
  const FuseParams& fuse = *batch.fuse;
  struct Fused {
    double score = 0;
    Candidate first;  // for attrs; the score is replaced by the fused one
  };
  std::map<std::pair<std::string_view, std::string_view>, Fused> merged;
  for (size_t i = 0; i < legs.size(); ++i) {
    const SearchParams& q = batch.queries[i];
    double weight = fuse.weights.empty() ? 1.0 : fuse.weights[i];
    size_t end = std::min(legs[i].ranked.size(), size_t(q.offset) + q.top_k);
    for (size_t pos = q.offset; pos < end; ++pos) {
      const Candidate& c = legs[i].ranked[pos];
      auto it = merged.try_emplace({legs[i].scope[c.collection]->name, c.id()}, Fused{0, c}).first;
      it->second.score += weight / (fuse.rrf_k + double(pos - q.offset + 1));
    }
  }
  for (const auto& [key, f] : merged)
    if (names->empty() || names->back() != key.first) names->push_back(key.first);
  std::vector<Candidate> ranked;
  for (const auto& [key, f] : merged) {
    Candidate c = f.first;
    c.score = float(f.score);
    c.collection = uint32_t(std::lower_bound(names->begin(), names->end(), key.first) - names->begin());
    ranked.push_back(c);
  }
  std::sort(ranked.begin(), ranked.end(), RanksBefore);
  return ranked;
}

}  // namespace

SegmentQuery SegmentQueryOf(const SearchParams& p, Metric metric, const AnnConfig* ann, const QuantizationConfig* quantization) {
  size_t window = RankWindow(p);
  SegmentQuery out{QueryOf(p, metric), false};
  out.query.window = uint32_t(window);
  out.query.min_score = MinScoreFloor(p);
  // Named vectors have no index or codes of their own yet: they are scanned exactly.
  out.approximate = (ann || quantization) && !p.exact && out.query.names.empty();
  if (ann) out.query.ef = EfOf(*ann, window);
  if (quantization) out.query.rescore = quantization->rescore;
  return out;
}

RankedSearch RankByVector(const QueryContext& ctx, const SearchParams& params) { return Rank(ctx, params, params.scope, nullptr); }

RankedPage RankVectorPage(const QueryContext& ctx, const SearchParams& params) { return PageOf(Rank(ctx, params, params.scope, nullptr)); }

std::string VectorSearch(const QueryContext& ctx, const SearchParams& params) { return PageJson(ctx, RankVectorPage(ctx, params), params); }

HitList VectorHits(const QueryContext& ctx, const SearchParams& params) {
  if (params.plan) throw BadRequest("plan: the arrays of hits carry no plan; leave plan out, or read the hits as objects");
  if (params.expand) throw BadRequest("expand: the arrays of hits carry no chunks; leave expand out, or read the hits as objects");
  RankedSearch r = Rank(ctx, params, params.scope, nullptr);
  HitList hits;
  size_t end = std::min(r.ranked.size(), size_t(params.offset) + params.top_k);
  for (size_t i = params.offset; i < end; ++i) {
    const Candidate& c = r.ranked[i];
    hits.collections.push_back(r.scope[c.collection]->name);
    hits.ids.push_back(c.id());
    hits.scores.push_back(c.score);
  }
  return hits;
}

std::string SimilarSearch(const QueryContext& ctx, SimilarParams sp) {
  const CollectionState* c = ctx.snap.Resolve(sp.collection);
  if (c == nullptr) throw BadRequest("collection '" + sp.collection + "' does not exist, so source record '" + sp.id + "' cannot be read");
  auto [seg, row] = FindLiveRows(*c, ctx.snap.version, {sp.id}, ctx.cancel)[0];
  if (seg == nullptr) throw BadRequest("source record '" + sp.id + "' does not exist in collection '" + c->name + "'");
  if (!seg->has_vector(row)) throw BadRequest("source record '" + sp.id + "' has no stored vector (it is text-only)");
  sp.search.query.assign(seg->vector(row), seg->vector(row) + seg->dim());
  Exclusion exclude{c->name, sp.id};
  std::vector<std::string> scope = sp.search.scope.empty() ? std::vector<std::string>{c->name} : sp.search.scope;
  return PageJson(ctx, PageOf(Rank(ctx, sp.search, scope, &exclude)), sp.search);
}

std::string BatchSearch(const QueryContext& ctx, const BatchParams& batch) {
  std::vector<RankedSearch> legs;
  for (const SearchParams& q : batch.queries) legs.push_back(Rank(ctx, q, q.scope, nullptr));
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  if (batch.fuse) {
    std::vector<std::string_view> names;
    std::vector<Candidate> fused = Fuse(legs, batch, &names);
    w.Key("fused");
    // Fused hits are written as the first leg asks: its projection and expand.
    const SearchParams& first = batch.queries[0];
    WriteHits(w, fused, 0, batch.fuse->top_k, names, first.projection,
              {nullptr, ExpandPage(ctx, first.expand, fused, 0, batch.fuse->top_k, names)});
  } else {
    w.Key("results");
    w.BeginArray();
    for (size_t i = 0; i < legs.size(); ++i) WriteRanked(ctx, w, legs[i], batch.queries[i]);
    w.EndArray();
  }
  w.EndObject();
  return out;
}

}  // namespace tessera
