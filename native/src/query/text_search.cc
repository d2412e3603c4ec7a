#include "query/text_search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "query/candidate_collector.h"
#include "query/chunk_scorer.h"
#include "query/ranking.h"
#include "query/scan.h"
#include "query/text_annotations.h"
#include "query/vector_search.h"

namespace tessera {
namespace {

constexpr uint64_t kInlinePostings = 1 << 15;

// TESSERA_TEXT_EXHAUSTIVE=1 turns dynamic pruning off: the oracle the pruned path is tested against.
bool ExhaustiveTextSearch() {
  static const bool exhaustive = [] {
    const char* v = std::getenv("TESSERA_TEXT_EXHAUSTIVE");
    return v != nullptr && std::string_view(v) == "1";
  }();
  return exhaustive;
}

struct TextRanking {
  PreparedText text;
  std::vector<Candidate> ranked;  // best first, window deep
};

struct TextTask {
  uint32_t scope_index;
  const SegmentRef* ref;
};

// Scores every live document matching the query in the scope, keeping the best `window` that pass
// the filter (and rank_by / min_score when given). Lists whose documents cannot reach the window
// are skipped (dynamic pruning) only where that cannot change the result.
TextRanking RankText(const QueryContext& ctx, PreparedText text, const TextQuery& q, const SearchParams& p, size_t window) {
  TextRanking result{std::move(text), {}};
  std::vector<TextTask> tasks;
  for (uint32_t i = 0; i < result.text.scope.size(); ++i) {
    const PreparedCollection& pc = result.text.prepared[i];
    if (std::any_of(pc.clauses.begin(), pc.clauses.end(), [](const PreparedClause& x) { return !x.terms.empty(); }))
      for (const SegmentRef& ref : result.text.scope[i]->segments)
        if (ref.indexes->text()) tasks.push_back({i, &ref});
  }
  // Pruning needs the final score to be the sum of every list's contribution and every scored
  // document to be a candidate: Sum, no filter, no rank_by.
  const bool prunable = !ExhaustiveTextSearch() && q.combine == Combine::kSum && p.filter.empty() && !p.rank_by && window > 0;
  std::vector<std::vector<Candidate>> found(tasks.size());
  std::atomic<float> shared_floor{-INFINITY};
  auto score_segment = [&](size_t t) {
    const TextTask& task = tasks[t];
    const Segment& seg = *task.ref->segment;
    // The postings hold only visible rows' scores; the filter is asked of scores the window wants.
    RowFilter admit(seg, ctx.snap.version, task.ref->deleted_rows, p.filter, std::nullopt);
    CandidateCollector collector(window, task.scope_index, seg, p, &shared_floor);
    ChunkScorer scorer(result.text.prepared[task.scope_index], q, *task.ref, prunable);
    for (const TextChunkPtr& chunk : task.ref->indexes->text()->chunks()) {
      ctx.cancel.ThrowIfCancelled();
      scorer.Score(*chunk, window, shared_floor.load(std::memory_order_relaxed), [&](uint32_t row, float score) {
        if (collector.Wants(score) && admit.Admits(row)) collector.Offer(row, score);
      });
    }
    found[t] = collector.Take();
  };
  // Waking the query threads costs tens of microseconds: a query reading few postings is faster
  // on the calling thread alone.
  if (result.text.postings < kInlinePostings) {
    for (size_t t = 0; t < tasks.size(); ++t) score_segment(t);
  } else {
    ctx.pool.ParallelFor(tasks.size(), score_segment);
  }
  for (auto& f : found) result.ranked.insert(result.ranked.end(), f.begin(), f.end());
  std::sort(result.ranked.begin(), result.ranked.end(), RanksBefore);
  if (result.ranked.size() > window) result.ranked.resize(window);
  return result;
}

uint32_t Dimension(const std::vector<Candidate>& ranked) { return ranked.empty() ? 0 : ranked[0].segment->dim(); }

}  // namespace

PreparedText PrepareText(const Snapshot& snap, const TextQuery& q, const std::vector<std::string>& scope) {
  PreparedText text;
  text.scope = ResolveScope(snap, scope);
  for (const CollectionState* c : text.scope) {
    text.prepared.push_back(Prepare(CollectionText(*c, snap.version), q));
    for (const PreparedClause& clause : text.prepared.back().clauses)
      for (const ScoredTerm& term : clause.terms) text.postings += term.df;
  }
  return text;
}

std::string TextSearch(const QueryContext& ctx, const TextSearchParams& params) {
  return RunTextSearch(ctx, PreparedTextSearch{params, PrepareText(ctx.snap, params.text, params.search.scope)});
}

RankedPage RankTextPage(const QueryContext& ctx, const PreparedTextSearch& search) {
  const TextSearchParams& params = search.params;
  const SearchParams& p = params.search;
  TextRanking r = RankText(ctx, search.text, params.text, p, RankWindow(p));
  ApplyRankPasses(r.ranked, p, Dimension(r.ranked));
  RankedPage page;
  page.names = ScopeNames(r.text.scope);
  page.ranked = std::move(r.ranked);
  if (params.text.explain || params.text.highlight) {
    auto text = std::make_shared<const std::pair<TextQuery, PreparedText>>(params.text, std::move(r.text));
    page.annotator = [text](const QueryContext& ctx) -> Annotator {
      return [text, &cancel = ctx.cancel](JsonWriter& w, const Candidate& c) {
        cancel.ThrowIfCancelled();  // highlighting reads and analyzes each hit's stored text
        JsonWriter::Scope annotations = w.Object();
        WriteTextAnnotations(w, text->first, text->second.prepared[c.collection], c);
      };
    };
  }
  return page;
}

std::string RunTextSearch(const QueryContext& ctx, const PreparedTextSearch& search) {
  return PageJson(ctx, RankTextPage(ctx, search), search.params.search);
}

namespace {

// Each record either hybrid leg returned, with its 0-based rank and score in each (-1: not returned).
struct Fused {
  Candidate candidate;
  int64_t vector_rank = -1, text_rank = -1;
  float vector_score = 0, text_score = 0;
};

// What a hybrid page's annotations read: the fusion by record, and the text leg's prepared terms.
struct HybridAnnotations {
  TextQuery text;
  std::map<std::pair<const Segment*, uint32_t>, Fused> fusion;
  PreparedText prepared;
};

}  // namespace

RankedPage RankHybridPage(const QueryContext& ctx, const HybridParams& params) {
  uint64_t start = NowNanos();
  // Both legs rank the same scope `candidates` deep, unfiltered by the page options.
  SearchParams leg = params.search;
  leg.offset = 0;
  leg.top_k = params.candidates;
  leg.limit_per.reset();
  leg.diversity.reset();
  RankedSearch vector = RankByVector(ctx, leg);
  TextRanking text = RankText(ctx, PrepareText(ctx.snap, params.text, leg.scope), params.text, leg, params.candidates);

  auto fused_by = std::make_shared<HybridAnnotations>();
  std::map<std::pair<const Segment*, uint32_t>, Fused>& fusion = fused_by->fusion;
  auto entry = [&](const Candidate& c) -> Fused& { return fusion.try_emplace({c.segment, c.row}, Fused{c}).first->second; };
  for (size_t i = 0; i < vector.ranked.size(); ++i) {
    Fused& f = entry(vector.ranked[i]);
    f.vector_rank = int64_t(i);
    f.vector_score = vector.ranked[i].score;
  }
  for (size_t i = 0; i < text.ranked.size(); ++i) {
    Fused& f = entry(text.ranked[i]);
    f.text_rank = int64_t(i);
    f.text_score = text.ranked[i].score;
  }
  // RRF with 1-based ranks, as /search/batch fuses.
  RankedPage page;
  for (const auto& [key, f] : fusion) {
    double score = 0;
    if (f.vector_rank >= 0) score += params.vector_weight / (params.rrf_k + double(f.vector_rank + 1));
    if (f.text_rank >= 0) score += params.text_weight / (params.rrf_k + double(f.text_rank + 1));
    Candidate c = f.candidate;
    c.score = float(score);
    page.ranked.push_back(c);
  }
  std::sort(page.ranked.begin(), page.ranked.end(), RanksBefore);
  ApplyRankPasses(page.ranked, params.search, Dimension(page.ranked));
  page.names = ScopeNames(vector.scope);
  if (params.text.explain || params.text.highlight) {
    fused_by->text = params.text;
    fused_by->prepared = std::move(text.text);
    page.annotator = [fused_by](const QueryContext& ctx) -> Annotator {
      return [fused_by, &cancel = ctx.cancel](JsonWriter& w, const Candidate& c) {
        cancel.ThrowIfCancelled();
        const Fused& f = fused_by->fusion.at({c.segment, c.row});
        JsonWriter::Scope annotations = w.Object();
        if (fused_by->text.explain) {
          auto leg = [&](const char* name, int64_t rank, float score) {
            if (rank < 0) return;
            w.Key(name);
            JsonWriter::Scope object = w.Object();
            w.Member("rank", uint64_t(rank));
            w.Member("score", score);
          };
          leg("vector", f.vector_rank, f.vector_score);
          leg("text", f.text_rank, f.text_score);
        }
        WriteTextAnnotations(w, fused_by->text, fused_by->prepared.prepared[c.collection], c);
      };
    };
  }
  // The plan is the vector leg's; its total covers the whole fused query.
  page.plan = std::move(vector.plan);
  page.plan->total_ns = NowNanos() - start;
  return page;
}

std::string HybridSearch(const QueryContext& ctx, const HybridParams& params) {
  return PageJson(ctx, RankHybridPage(ctx, params), params.search);
}

}  // namespace tessera
