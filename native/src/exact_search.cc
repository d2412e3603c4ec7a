#include "tessera/exact_search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <unordered_map>

#include "tessera/error.h"
#include "tessera/hit_writer.h"
#include "tessera/json_writer.h"
#include "tessera/kernels.h"
#include "tessera/ranking.h"
#include "tessera/scan.h"
#include "tessera/value.h"

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
      return std::find(c->vector_names.begin(), c->vector_names.end(), name) != c->vector_names.end();
    });
    if (!declared) throw BadRequest("names: vector '" + name + "' is not declared in any collection in scope");
  }
}

RankedSearch Rank(const QueryContext& ctx, const SearchParams& p, const std::vector<std::string>& scope_names,
                  const Exclusion* exclude) {
  RankedSearch result;
  result.scope = ResolveScope(ctx.snap, scope_names);
  CheckNames(result.scope, p);
  size_t window = RankWindow(p);

  ScanPlan plan = PlanScan(result.scope, ctx.pool.size(), p.filter);
  const Kernels& k = ActiveKernels();
  const float* q = p.query.data();
  const uint32_t dim = uint32_t(p.query.size());
  const bool euclidean = ctx.metric == Metric::kEuclidean;
  auto distance = [&](const float* v) { return euclidean ? -k.l2sq(q, v, dim) : k.dot(q, v, dim); };
  const double min_score = p.min_score.value_or(-INFINITY);
  std::vector<std::pair<std::string, float>> names;
  for (const std::string& n : p.names) {
    auto w = p.name_weights.find(n);
    names.emplace_back(n, w == p.name_weights.end() ? 1.0f : w->second);
  }

  std::vector<std::vector<Candidate>> found(plan.tasks.size());
  // Any full task heap's lowest score bounds the final window from below, so tasks share the
  // highest such floor and skip rows under it before the filter or attributes are read.
  std::atomic<float> shared_floor{-INFINITY};
  ctx.pool.ParallelFor(plan.tasks.size(), [&](size_t t) {
    const ScanTask& task = plan.tasks[t];
    const Segment& seg = *task.segment;
    const bool excluding = exclude && result.scope[task.scope_index]->name == exclude->collection;
    std::vector<const NamedColumn*> columns;
    for (const auto& [name, w] : names) columns.push_back(name == "default" ? nullptr : seg.named(name));
    CandidateHeap heap(window);
    // Everything after the base score: the heap bound, filter, exclusion, rank_by, min_score.
    auto consider = [&](uint32_t r, float score) {
      // rank_by only subtracts, so a base score that cannot enter the heap never will; checking
      // the bound before the filter changes no result, only the work.
      if (score < shared_floor.load(std::memory_order_relaxed) || !heap.MayAccept(score)) return;
      std::string_view attrs = seg.row_attrs(r);
      if (!p.filter.empty() && !p.filter.Matches(attrs)) return;
      if (excluding && seg.row_id(r) == exclude->id) return;
      if (p.rank_by) score = float(score - DecayPenalty(*p.rank_by, attrs));
      if (score < min_score) return;
      heap.Offer(Candidate{score, task.scope_index, seg.row_id(r), &seg, r});
      for (float floor = heap.floor(), seen = shared_floor.load(std::memory_order_relaxed);
           floor > seen && !shared_floor.compare_exchange_weak(seen, floor, std::memory_order_relaxed);) {
      }
    };
    if (names.empty() && !plan.narrowed.count(task.segment)) {
      // Contiguous rows of the default vector: score a block at a time with the multi-row kernel.
      constexpr uint32_t kBlock = 64;
      float scores[kBlock];
      for (uint32_t b = task.begin; b < task.end; b += kBlock) {
        if ((b - task.begin) % kRowsPerCancelCheck == 0) ctx.cancel.ThrowIfCancelled();
        uint32_t n = std::min(kBlock, task.end - b);
        (euclidean ? k.l2sq_rows : k.dot_rows)(q, seg.vector(b), dim, n, scores);
        for (uint32_t i = 0; i < n; ++i) {
          uint32_t r = b + i;
          if (seg.visible(r, ctx.snap.version) && seg.has_vector(r)) consider(r, euclidean ? -scores[i] : scores[i]);
        }
      }
    } else {
      ForEachPlannedRow(plan, task, ctx.cancel, [&](uint32_t r) {
        if (!seg.visible(r, ctx.snap.version)) return;
        if (names.empty()) {
          if (seg.has_vector(r)) consider(r, distance(seg.vector(r)));
          return;
        }
        // A record is scored on the names it carries and not penalized for the others.
        bool any = false;
        float folded = 0;
        for (size_t i = 0; i < names.size(); ++i) {
          const float* v = nullptr;
          if (names[i].first == "default") v = seg.has_vector(r) ? seg.vector(r) : nullptr;
          else if (columns[i] && columns[i]->has(r)) v = columns[i]->row(r, dim);
          if (v == nullptr) continue;
          float s = distance(v) * names[i].second;
          folded = !any ? s : p.pool == Pool::kSum ? folded + s : std::max(folded, s);
          any = true;
        }
        if (any) consider(r, folded);
      });
    }
    found[t] = heap.Take();
  });

  for (auto& f : found) result.ranked.insert(result.ranked.end(), f.begin(), f.end());
  std::sort(result.ranked.begin(), result.ranked.end(), RanksBefore);
  if (result.ranked.size() > window) result.ranked.resize(window);
  ApplyRankPasses(result.ranked, p, dim);
  return result;
}

std::string WriteRanked(const RankedSearch& r, const SearchParams& p) {
  return WriteHits(r.ranked, p.offset, p.top_k, ScopeNames(r.scope), p.projection);
}

}  // namespace

RankedSearch RankByVector(const QueryContext& ctx, const SearchParams& params) {
  return Rank(ctx, params, params.scope, nullptr);
}

std::string ExactSearch(const QueryContext& ctx, const SearchParams& params) {
  return WriteRanked(Rank(ctx, params, params.scope, nullptr), params);
}

std::string SimilarSearch(const QueryContext& ctx, SimilarParams sp) {
  const CollectionState* c = ctx.snap.Resolve(sp.collection);
  if (c == nullptr) throw BadRequest("collection '" + sp.collection + "' does not exist, so source record '" + sp.id + "' cannot be read");
  const Segment* seg = nullptr;
  uint32_t row = 0;
  for (const SegmentRef& ref : c->segments)
    for (uint32_t r = 0; r < ref.rows && !seg; ++r)
      if (ref.segment->visible(r, ctx.snap.version) && ref.segment->row_id(r) == sp.id) {
        seg = ref.segment.get();
        row = r;
      }
  if (seg == nullptr) throw BadRequest("source record '" + sp.id + "' does not exist in collection '" + c->name + "'");
  if (!seg->has_vector(row)) throw BadRequest("source record '" + sp.id + "' has no stored vector (it is text-only)");
  sp.search.query.assign(seg->vector(row), seg->vector(row) + seg->dim());
  Exclusion exclude{c->name, sp.id};
  std::vector<std::string> scope = sp.search.scope.empty() ? std::vector<std::string>{c->name} : sp.search.scope;
  return WriteRanked(Rank(ctx, sp.search, scope, &exclude), sp.search);
}

std::string BatchSearch(const QueryContext& ctx, const BatchParams& batch) {
  std::vector<RankedSearch> legs;
  for (const SearchParams& q : batch.queries) legs.push_back(Rank(ctx, q, q.scope, nullptr));
  std::string out;
  JsonWriter w(&out);
  if (!batch.fuse) {
    w.Raw("{\"results\":[");
    for (size_t i = 0; i < legs.size(); ++i) {
      if (i) w.Char(',');
      w.Raw(WriteRanked(legs[i], batch.queries[i]));
    }
    w.Raw("]}");
    return out;
  }
  // Reciprocal rank fusion over each leg's page, ranks 1-based: score = sum of w / (rrf_k + rank).
  const FuseParams& fuse = *batch.fuse;
  struct Fused {
    double score = 0;
    Candidate first;  // for attrs; the score is replaced by the fused one
  };
  std::map<std::pair<std::string, std::string>, Fused> merged;
  for (size_t i = 0; i < legs.size(); ++i) {
    const SearchParams& q = batch.queries[i];
    double weight = fuse.weights.empty() ? 1.0 : fuse.weights[i];
    size_t end = std::min(legs[i].ranked.size(), size_t(q.offset) + q.top_k);
    for (size_t pos = q.offset; pos < end; ++pos) {
      const Candidate& c = legs[i].ranked[pos];
      auto it = merged.try_emplace({std::string(legs[i].scope[c.collection]->name), std::string(c.id)}, Fused{0, c}).first;
      it->second.score += weight / (fuse.rrf_k + double(pos - q.offset + 1));
    }
  }
  // Collections in name order give fused candidates a shared collection index.
  std::vector<std::string_view> names;
  for (const auto& [key, f] : merged)
    if (names.empty() || names.back() != key.first) names.push_back(key.first);
  std::vector<Candidate> ranked;
  for (const auto& [key, f] : merged) {
    Candidate c = f.first;
    c.score = float(f.score);
    c.collection = uint32_t(std::lower_bound(names.begin(), names.end(), std::string_view(key.first)) - names.begin());
    ranked.push_back(c);
  }
  std::sort(ranked.begin(), ranked.end(), RanksBefore);
  w.Raw("{\"fused\":");
  // Fused hits take the first leg's projection.
  w.Raw(WriteHits(ranked, 0, fuse.top_k, names, batch.queries[0].projection));
  w.Char('}');
  return out;
}

}  // namespace tessera
