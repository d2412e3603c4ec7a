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
#include "tessera/scan.h"
#include "tessera/value.h"

namespace tessera {
namespace {

// limit_per is exact within this many candidates per page slot; diversity reorders this window.
constexpr size_t kLimitPerOverfetch = 10;
constexpr size_t kMaxWindow = 100000;
constexpr size_t kDiversityWindow = 512;

// The /search/similar source record, excluded from its own results by identity.
struct Exclusion {
  std::string collection;
  std::string id;
};

struct RankedSearch {
  std::vector<const CollectionState*> scope;
  std::vector<Candidate> ranked;  // best first, post passes applied
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

// rank_by's penalty for one record: a timestamp is a usable Int or DateTime, else `missing` applies.
double DecayPenalty(const DecayRank& d, std::string_view attrs) {
  double penalty = 0;
  ValueView v;
  if (!d.field.empty()) {
    bool usable = FindAttr(attrs, d.field, &v) && (v.tag == ValueTag::kInt || v.tag == ValueTag::kDateTime);
    double age = usable ? std::max(0.0, double(d.origin) - double(v.i)) : 0;
    double factor = usable ? std::pow(d.decay, age / d.scale) : d.missing;
    penalty += d.lambda * (1 - factor);
  }
  if (!d.count_field.empty()) {
    double n = 0;
    if (FindAttr(attrs, d.count_field, &v) && v.tag == ValueTag::kInt) n = std::max<double>(0, double(v.i));
    penalty += d.count_lambda * (1 - n / (n + d.count_scale));
  }
  return penalty;
}

// Greedy in rank order: at most max hits per stored value of the field (missing is one group).
std::vector<Candidate> LimitPer(std::vector<Candidate> ranked, const LimitPer& lp) {
  std::unordered_map<std::string, uint32_t> seen;
  std::vector<Candidate> out;
  for (const Candidate& c : ranked) {
    ValueView v;
    std::string key = FindAttr(c.segment->row_attrs(c.row), lp.field, &v) ? ValueKey(v) : std::string();
    if (++seen[key] <= lp.max) out.push_back(c);
  }
  return out;
}

// Maximal marginal relevance over the first kDiversityWindow candidates: relevance is the score
// scaled to [0, 1] within the window, redundancy the cosine similarity of stored vectors.
void Diversify(std::vector<Candidate>& ranked, double lambda, uint32_t dim) {
  size_t n = std::min(ranked.size(), kDiversityWindow);
  if (n < 3 || dim == 0) return;
  const Kernels& k = ActiveKernels();
  float hi = ranked[0].score, lo = ranked[n - 1].score;
  std::vector<double> relevance(n), norm(n), max_sim(n, -INFINITY);
  for (size_t i = 0; i < n; ++i) {
    relevance[i] = hi > lo ? (ranked[i].score - lo) / double(hi - lo) : 1.0;
    const Candidate& c = ranked[i];
    norm[i] = c.segment->has_vector(c.row) ? std::sqrt(k.dot(c.segment->vector(c.row), c.segment->vector(c.row), dim)) : 0;
  }
  auto similarity = [&](size_t a, size_t b) -> double {
    if (norm[a] == 0 || norm[b] == 0) return 0;  // no vector, no redundancy penalty
    const Candidate &x = ranked[a], &y = ranked[b];
    return k.dot(x.segment->vector(x.row), y.segment->vector(y.row), dim) / (norm[a] * norm[b]);
  };
  std::vector<size_t> order = {0};  // rank 1 never moves
  std::vector<bool> taken(n, false);
  taken[0] = true;
  for (size_t step = 1; step < n; ++step) {
    size_t last = order.back();
    size_t best = n;
    double best_value = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
      if (taken[i]) continue;
      max_sim[i] = std::max(max_sim[i], similarity(i, last));
      double value = lambda * relevance[i] - (1 - lambda) * max_sim[i];
      bool tie_wins = best < n && value == best_value &&
                      (ranked[i].collection != ranked[best].collection ? ranked[i].collection < ranked[best].collection
                                                                       : ranked[i].id < ranked[best].id);
      if (value > best_value || tie_wins) {
        best = i;
        best_value = value;
      }
    }
    taken[best] = true;
    order.push_back(best);
  }
  std::vector<Candidate> window;
  for (size_t i : order) window.push_back(ranked[i]);
  std::copy(window.begin(), window.end(), ranked.begin());
}

RankedSearch Rank(const QueryContext& ctx, const SearchParams& p, const std::vector<std::string>& scope_names,
                  const Exclusion* exclude) {
  RankedSearch result;
  result.scope = ResolveScope(ctx.snap, scope_names);
  CheckNames(result.scope, p);
  size_t depth = size_t(p.offset) + p.top_k;
  size_t window = depth;
  if (p.diversity) window = std::max(window, kDiversityWindow);
  if (p.limit_per) window = std::min(kMaxWindow, window * kLimitPerOverfetch);

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
  if (p.limit_per) result.ranked = LimitPer(std::move(result.ranked), *p.limit_per);
  if (p.diversity) Diversify(result.ranked, *p.diversity, dim);
  return result;
}

std::vector<std::string_view> Names(const std::vector<const CollectionState*>& scope) {
  std::vector<std::string_view> out;
  for (const CollectionState* c : scope) out.push_back(c->name);
  return out;
}

std::string WriteRanked(const RankedSearch& r, const SearchParams& p) {
  return WriteHits(r.ranked, p.offset, p.top_k, Names(r.scope), p.projection);
}

}  // namespace

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
