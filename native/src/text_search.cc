#include "tessera/text_search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "highlight.h"
#include "tessera/json_writer.h"
#include "tessera/ranking.h"
#include "tessera/scan.h"
#include "tessera/text_analyzer.h"
#include "text_corpus.h"

namespace tessera {
namespace {

constexpr size_t kMaxExpansion = 256;
constexpr uint64_t kInlinePostings = 1 << 15;
constexpr uint32_t kRecheckPostings = 1024;
constexpr size_t kKeptAccumulators = size_t(1) << 20;  // 8 MiB of doubles per query thread  // how often block skipping recomputes its threshold

struct ScoredTerm {
  std::string term;
  double idf;
  uint64_t df;  // live documents holding it: the postings a query reads for it
};

// One clause prepared against one collection: its terms with collection-wide idf.
struct PreparedClause {
  int field = -1;  // in the collection's schema; -1 matches nothing
  double k1 = 0, b = 0, avgdl = 0;
  std::vector<ScoredTerm> terms;
  bool prefix = false;
  uint64_t matched = 0, scored = 0;  // prefix expansion

  double Score(uint32_t tf, uint32_t dl, double idf) const {
    double norm = k1 * (1 - b + b * double(dl) / avgdl);
    return idf * tf * (k1 + 1) / (tf + norm);
  }
};

struct PreparedCollection {
  CollectionText text;
  std::vector<PreparedClause> clauses;
};

PreparedClause PrepareClause(const CollectionText& text, const TextClause& clause, const CollectionText::FieldStats& stats) {
  PreparedClause pc;
  pc.field = text.FieldIndex(clause.field);
  pc.prefix = clause.prefix;
  if (pc.field < 0) return pc;
  const FtsField& field = text.field(pc.field);
  pc.k1 = field.k1;
  pc.b = field.b;
  pc.avgdl = stats.avgdl();
  Analyzer analyzer(field);
  std::string_view exact_part = clause.query;
  std::string prefix;
  if (clause.prefix) {
    std::vector<WordSpan> words = SplitWords(clause.query);
    if (!words.empty()) {
      exact_part = exact_part.substr(0, words.back().begin);
      prefix = analyzer.Fold(std::string_view(clause.query).substr(words.back().begin, words.back().end - words.back().begin));
    }
  }
  std::map<std::string, uint64_t> df;  // every scored term, with its live document frequency
  for (const AnalyzedToken& t : analyzer.Analyze(exact_part)) df.try_emplace(t.term, 0);
  for (auto& [term, n] : df) n = text.DocFreq(pc.field, term);
  if (!prefix.empty()) {
    std::vector<std::pair<uint64_t, std::string>> expansion;
    for (std::string& term : text.ExpandPrefix(pc.field, prefix)) {
      uint64_t n = text.DocFreq(pc.field, term);
      if (n > 0) expansion.emplace_back(n, std::move(term));
    }
    pc.matched = expansion.size();
    // The commonest completions are kept; ties by term.
    std::sort(expansion.begin(), expansion.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (expansion.size() > kMaxExpansion) expansion.resize(kMaxExpansion);
    pc.scored = expansion.size();
    for (auto& [n, term] : expansion) df.try_emplace(std::move(term), n);
  }
  for (const auto& [term, n] : df)
    if (n > 0) pc.terms.push_back({term, std::log(1 + (double(stats.docs) - double(n) + 0.5) / (double(n) + 0.5)), n});
  return pc;
}

// The query's clauses against one collection; each field's statistics are gathered once.
PreparedCollection Prepare(const CollectionText& text, const TextQuery& q) {
  PreparedCollection pc{text, {}};
  std::map<int, CollectionText::FieldStats> stats;
  for (const TextClause& clause : q.clauses) {
    int field = text.FieldIndex(clause.field);
    auto it = stats.find(field);
    if (it == stats.end() && field >= 0) it = stats.emplace(field, text.Stats(field)).first;
    pc.clauses.push_back(PrepareClause(text, clause, field >= 0 ? it->second : CollectionText::FieldStats{}));
  }
  return pc;
}

// One query term's posting list in one chunk, with a bound on its BM25 contribution.
struct TermPostings {
  size_t clause;
  const FieldPostings* fp;
  size_t term;  // index in fp's dictionary
  uint32_t first, last;
  double idf;
  double bound;
};

// TESSERA_TEXT_EXHAUSTIVE=1 turns dynamic pruning off: the oracle the pruned path is tested against.
bool ExhaustiveTextSearch() {
  static const bool exhaustive = [] {
    const char* v = std::getenv("TESSERA_TEXT_EXHAUSTIVE");
    return v != nullptr && std::string_view(v) == "1";
  }();
  return exhaustive;
}

// Per-thread accumulators per (slot, row) and per-row flags, kept zeroed between chunks by
// resetting only the entries a chunk touched, so a query pays for the postings it reads rather
// than for the size of the segments. A task that stopped midway (cancelled) leaves it dirty.
struct ScoreScratch {
  std::vector<double> acc;
  std::vector<uint8_t> seen;
  std::vector<uint32_t> touched;
  bool dirty = false;

  static ScoreScratch& ForThisThread(size_t accumulators, size_t rows) {
    thread_local ScoreScratch scratch;
    if (scratch.dirty) {
      std::fill(scratch.acc.begin(), scratch.acc.end(), 0.0);
      std::fill(scratch.seen.begin(), scratch.seen.end(), 0);
    }
    if (scratch.acc.size() < accumulators) scratch.acc.resize(accumulators, 0.0);
    if (scratch.seen.size() < rows) scratch.seen.resize(rows, 0);
    scratch.touched.clear();
    scratch.dirty = true;
    return scratch;
  }
};

// Scores the chunks of one segment for one prepared query. Sum keeps one accumulator per row;
// Max keeps one per clause and row, since its combination needs each clause's own score.
class ChunkScorer {
 public:
  ChunkScorer(const PreparedCollection& pc, const TextQuery& q, const SegmentRef& ref, bool prunable)
      : pc_(pc), ref_(ref), slots_(q.combine == Combine::kMax ? pc.clauses.size() : 1), prunable_(prunable),
        scratch_(ScoreScratch::ForThisThread(slots_ * size_t(ref.rows), ref.rows)) {}
  ~ChunkScorer() {
    scratch_.dirty = std::uncaught_exceptions() > 0;
    // Max over many clauses needs clauses x rows accumulators; a thread keeps no more than this.
    if (scratch_.acc.size() > kKeptAccumulators) scratch_ = ScoreScratch();
  }

  // Accumulates the chunk's matching live rows; then fn(row, combined score) for each (in no
  // particular order: candidates rank by score, collection and id alone).
  // floor: a score the window's last candidate already beats or ties (-inf when unknown).
  template <typename Fn>
  void Score(const TextChunk& chunk, size_t window, float floor, Fn&& fn) {
    begin_ = chunk.begin();
    rows_ = chunk.end() - begin_;
    window_ = window;
    floor_ = floor;
    scratch_.touched.clear();
    std::vector<TermPostings> lists = Lists(chunk);
    double rest = 0;  // bound on what the lists not yet read can add to any document
    for (const TermPostings& l : lists) rest += l.bound;
    bool admitting = true;
    for (const TermPostings& l : lists) {
      // Once the window-th best partial sum beats everything the remaining lists could give a
      // document not yet seen, no unseen document can reach the window: read only the seen ones.
      // Compared as the float scores candidates carry, strictly: an unseen document tying the
      // threshold could still win on (collection, id).
      if (admitting && prunable_ && scratch_.touched.size() >= window &&
          Below(rest, std::max(floor, float(KthBest(window))))) {
        admitting = false;
        std::sort(scratch_.touched.begin(), scratch_.touched.end());
      }
      if (admitting) Admit(l, rest - l.bound);
      else Update(l);
      rest -= l.bound;
    }
    for (uint32_t local : scratch_.touched) {
      double combined = 0;
      for (size_t slot = 0; slot < slots_; ++slot) {
        double& s = scratch_.acc[slot * rows_ + local];
        combined = std::max(combined, s);  // one slot: its sum; one per clause: Max
        s = 0;
      }
      scratch_.seen[local] = 0;
      fn(begin_ + local, float(combined));
    }
  }

 private:
  // The chunk's posting lists of the query's terms, strongest possible contribution first.
  std::vector<TermPostings> Lists(const TextChunk& chunk) const {
    std::vector<TermPostings> lists;
    for (size_t ci = 0; ci < pc_.clauses.size(); ++ci) {
      const PreparedClause& clause = pc_.clauses[ci];
      if (clause.terms.empty()) continue;
      const FieldPostings& fp = chunk.field(size_t(clause.field));
      for (const ScoredTerm& term : clause.terms) {
        int64_t ti = fp.Find(term.term);
        if (ti < 0) continue;
        double bound = clause.Score(fp.max_tf[size_t(ti)], fp.min_dl[size_t(ti)], term.idf);
        lists.push_back({ci, &fp, size_t(ti), fp.term_start[size_t(ti)], fp.term_start[size_t(ti) + 1], term.idf, bound});
      }
    }
    std::sort(lists.begin(), lists.end(), [](const TermPostings& a, const TermPostings& b) { return a.bound > b.bound; });
    return lists;
  }

  double* Slot(const TermPostings& l) { return scratch_.acc.data() + (slots_ == 1 ? 0 : l.clause) * rows_; }

  // Whether a score bounded by bound stays strictly under threshold as the float scores candidates
  // carry (a tie could still win on collection and id).
  static bool Below(double bound, float threshold) { return float(bound * (1 + 1e-9)) < threshold; }

  // Adds the list's contribution to every live row it holds, block by block. A block whose bound
  // (plus what later lists could add) stays under the window's current threshold cannot bring a
  // document into the window: it is skipped, except that documents already seen take their share.
  void Admit(const TermPostings& l, double later) {
    const PreparedClause& clause = pc_.clauses[l.clause];
    const FieldPostings& fp = *l.fp;
    double* acc = Slot(l);
    const bool none_seen = scratch_.touched.empty();
    float threshold = -INFINITY;
    uint32_t unchecked = kRecheckPostings;  // postings admitted since the threshold was computed
    uint32_t block = fp.block_start[l.term];
    for (uint32_t first = l.first; first < l.last; first += kPostingsBlock, ++block) {
      const uint32_t last = std::min(first + kPostingsBlock, l.last);
      if (prunable_ && scratch_.touched.size() >= window_) {
        if (unchecked >= kRecheckPostings) {
          threshold = std::max(floor_, float(KthBest(window_)));
          unchecked = 0;
        }
        if (Below(clause.Score(fp.block_max_tf[block], fp.block_min_dl[block], l.idf) + later, threshold)) {
          if (!none_seen)
            for (uint32_t i = first; i < last; ++i) {
              uint32_t local = fp.docs[i] - begin_;
              if (scratch_.seen[local]) acc[local] += clause.Score(fp.tfs[i], fp.doc_len[local], l.idf);
            }
          continue;
        }
      }
      for (uint32_t i = first; i < last; ++i) {
        uint32_t row = fp.docs[i];
        if (!pc_.text.Visible(ref_, row)) continue;
        uint32_t local = row - begin_;
        acc[local] += clause.Score(fp.tfs[i], fp.doc_len[local], l.idf);
        if (!scratch_.seen[local]) {
          scratch_.seen[local] = 1;
          scratch_.touched.push_back(local);
        }
      }
      unchecked += last - first;
    }
  }

  // Adds the list's contribution to the rows already seen (touched is sorted), skipping the rest.
  void Update(const TermPostings& l) {
    const PreparedClause& clause = pc_.clauses[l.clause];
    double* acc = Slot(l);
    auto from = l.fp->docs.begin() + l.first, to = l.fp->docs.begin() + l.last;
    for (uint32_t local : scratch_.touched) {
      from = std::lower_bound(from, to, begin_ + local);
      if (from == to) break;
      if (*from != begin_ + local) continue;
      acc[local] += clause.Score(l.fp->tfs[size_t(from - l.fp->docs.begin())], l.fp->doc_len[local], l.idf);
    }
  }

  // The k-th largest partial sum among the touched rows (Sum only; k <= touched.size()).
  double KthBest(size_t k) {
    sums_.clear();
    for (uint32_t local : scratch_.touched) sums_.push_back(scratch_.acc[local]);
    std::nth_element(sums_.begin(), sums_.begin() + long(k - 1), sums_.end(), std::greater<double>());
    return sums_[k - 1];
  }

  const PreparedCollection& pc_;
  const SegmentRef& ref_;
  const size_t slots_;
  const bool prunable_;
  ScoreScratch& scratch_;
  std::vector<double> sums_;
  uint32_t begin_ = 0, rows_ = 0;
  size_t window_ = 0;
  float floor_ = -INFINITY;
};

struct TextRanking {
  std::vector<const CollectionState*> scope;
  std::vector<PreparedCollection> prepared;  // parallel to scope
  std::vector<Candidate> ranked;             // best first, window deep
};

struct TextTask {
  uint32_t scope_index;
  const SegmentRef* ref;
};

// Scores every live document matching the query in the scope, keeping the best `window` that pass
// the filter (and rank_by / min_score when given). Lists whose documents cannot reach the window
// are skipped (dynamic pruning) only where that cannot change the result.
TextRanking RankText(const QueryContext& ctx, const TextQuery& q, const SearchParams& p, size_t window) {
  TextRanking result;
  result.scope = ResolveScope(ctx.snap, p.scope);
  std::vector<TextTask> tasks;
  for (uint32_t i = 0; i < result.scope.size(); ++i) {
    result.prepared.push_back(Prepare(CollectionText(*result.scope[i], ctx.snap.version), q));
    const PreparedCollection& pc = result.prepared.back();
    if (std::any_of(pc.clauses.begin(), pc.clauses.end(), [](const PreparedClause& x) { return !x.terms.empty(); }))
      for (const SegmentRef& ref : result.scope[i]->segments)
        if (ref.text) tasks.push_back({i, &ref});
  }
  // Pruning needs the final score to be the sum of every list's contribution and every scored
  // document to be a candidate: Sum, no filter, no rank_by.
  const bool prunable = !ExhaustiveTextSearch() && q.combine == Combine::kSum && p.filter.empty() && !p.rank_by && window > 0;
  const double min_score = p.min_score.value_or(-INFINITY);
  std::vector<std::vector<Candidate>> found(tasks.size());
  std::atomic<float> shared_floor{-INFINITY};
  auto score_segment = [&](size_t t) {
    const TextTask& task = tasks[t];
    const Segment& seg = *task.ref->segment;
    CandidateHeap heap(window);
    ChunkScorer scorer(result.prepared[task.scope_index], q, *task.ref, prunable);
    for (const TextChunkPtr& chunk : task.ref->text->chunks()) {
      ctx.cancel.ThrowIfCancelled();
      scorer.Score(*chunk, window, shared_floor.load(std::memory_order_relaxed), [&](uint32_t row, float score) {
        if (score < shared_floor.load(std::memory_order_relaxed) || !heap.MayAccept(score)) return;
        std::string_view attrs = seg.row_attrs(row);
        if (!p.filter.empty() && !p.filter.Matches(attrs)) return;
        if (p.rank_by) score = float(score - DecayPenalty(*p.rank_by, attrs));
        if (score < min_score) return;
        heap.Offer(Candidate{score, task.scope_index, seg.row_id(row), &seg, row});
        for (float floor = heap.floor(), prev = shared_floor.load(std::memory_order_relaxed);
             floor > prev && !shared_floor.compare_exchange_weak(prev, floor, std::memory_order_relaxed);) {
        }
      });
    }
    found[t] = heap.Take();
  };
  // Waking the query threads costs tens of microseconds: a query reading few postings is faster
  // on the calling thread alone.
  uint64_t postings = 0;
  for (const PreparedCollection& pc : result.prepared)
    for (const PreparedClause& clause : pc.clauses)
      for (const ScoredTerm& term : clause.terms) postings += term.df;
  if (postings < kInlinePostings) {
    for (size_t t = 0; t < tasks.size(); ++t) score_segment(t);
  } else {
    ctx.pool.ParallelFor(tasks.size(), score_segment);
  }
  for (auto& f : found) result.ranked.insert(result.ranked.end(), f.begin(), f.end());
  std::sort(result.ranked.begin(), result.ranked.end(), RanksBefore);
  if (result.ranked.size() > window) result.ranked.resize(window);
  return result;
}

// The clause's BM25 score for one row, or a negative value when the row holds none of its terms.
double ClauseScore(const PreparedClause& clause, const CollectionText& text, const Segment* segment, uint32_t row) {
  if (clause.terms.empty()) return -1;
  for (const SegmentRef& ref : text.collection().segments) {
    if (ref.segment.get() != segment || !ref.text) continue;
    const TextChunk* chunk = ref.text->ChunkOf(row);
    if (chunk == nullptr) return -1;
    const FieldPostings& fp = chunk->field(size_t(clause.field));
    double score = 0;
    bool any = false;
    for (const ScoredTerm& term : clause.terms) {
      int64_t ti = fp.Find(term.term);
      if (ti < 0) continue;
      auto first = fp.docs.begin() + fp.term_start[size_t(ti)], last = fp.docs.begin() + fp.term_start[size_t(ti) + 1];
      auto it = std::lower_bound(first, last, row);
      if (it == last || *it != row) continue;
      score += clause.Score(fp.tfs[size_t(it - fp.docs.begin())], fp.doc_len[row - chunk->begin()], term.idf);
      any = true;
    }
    return any ? score : -1;
  }
  return -1;
}

// annotations.clauses: each matched clause in query order.
void WriteClauses(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c) {
  w.Raw("\"clauses\":[");
  bool first = true;
  for (size_t i = 0; i < pc.clauses.size(); ++i) {
    double score = ClauseScore(pc.clauses[i], pc.text, c.segment, c.row);
    if (score < 0) continue;
    if (!first) w.Char(',');
    first = false;
    w.Raw("{\"field\":");
    w.String(q.clauses[i].field);
    w.Raw(",\"score\":");
    w.Double(score);
    if (pc.clauses[i].prefix) {
      w.Raw(",\"expansion\":{\"matched\":");
      w.UInt(pc.clauses[i].matched);
      w.Raw(",\"scored\":");
      w.UInt(pc.clauses[i].scored);
      w.Char('}');
    }
    w.Char('}');
  }
  w.Char(']');
}

// annotations.highlights: per clause field (first-mention order) holding a matching word.
void WriteHighlights(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c) {
  std::vector<int> fields;
  for (const PreparedClause& clause : pc.clauses)
    if (clause.field >= 0 && std::find(fields.begin(), fields.end(), clause.field) == fields.end()) fields.push_back(clause.field);
  w.Raw("\"highlights\":[");
  bool first = true;
  std::string scratch;
  for (int field : fields) {
    std::string_view text;
    if (!FieldText(c.segment->row_attrs(c.row), pc.text.field(field).field, &scratch, &text)) continue;
    std::unordered_set<std::string_view> terms;  // every clause term on this field, expansions included
    for (const PreparedClause& clause : pc.clauses)
      if (clause.field == field)
        for (const ScoredTerm& term : clause.terms) terms.insert(term.term);
    Analyzer analyzer(pc.text.field(field));
    std::vector<WordSpan> matches;
    analyzer.ForEachToken(text, [&](const AnalyzedWord& word, uint32_t, WordSpan span) {
      if (terms.count(word.term)) matches.push_back(span);
    });
    std::vector<Fragment> fragments = MakeFragments(text, matches, *q.highlight);
    if (fragments.empty()) continue;
    if (!first) w.Char(',');
    first = false;
    w.Raw("{\"field\":");
    w.String(pc.text.field(field).field);
    w.Raw(",\"fragments\":[");
    for (size_t i = 0; i < fragments.size(); ++i) {
      if (i) w.Char(',');
      w.Raw("{\"text\":");
      w.String(fragments[i].text);
      w.Raw(",\"spans\":[");
      for (size_t j = 0; j < fragments[i].spans.size(); ++j) {
        if (j) w.Char(',');
        w.Char('[');
        w.UInt(fragments[i].spans[j].first);
        w.Char(',');
        w.UInt(fragments[i].spans[j].second);
        w.Char(']');
      }
      w.Raw("]}");
    }
    w.Raw("]}");
  }
  w.Char(']');
}

// The explain and highlight members of an annotations object (no braces); first: nothing precedes them.
void WriteTextAnnotations(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c, bool first) {
  if (q.explain) {
    if (!first) w.Char(',');
    WriteClauses(w, q, pc, c);
    first = false;
  }
  if (q.highlight) {
    if (!first) w.Char(',');
    WriteHighlights(w, q, pc, c);
  }
}

uint32_t Dimension(const std::vector<Candidate>& ranked) { return ranked.empty() ? 0 : ranked[0].segment->dim(); }

}  // namespace

std::string TextSearch(const QueryContext& ctx, const TextSearchParams& params) {
  const SearchParams& p = params.search;
  TextRanking r = RankText(ctx, params.text, p, RankWindow(p));
  ApplyRankPasses(r.ranked, p, Dimension(r.ranked));
  Annotator annotate;
  if (params.text.explain || params.text.highlight)
    annotate = [&](JsonWriter& w, const Candidate& c) {
      ctx.cancel.ThrowIfCancelled();  // highlighting reads and analyzes each hit's stored text
      w.Char('{');
      WriteTextAnnotations(w, params.text, r.prepared[c.collection], c, true);
      w.Char('}');
    };
  return WriteHits(r.ranked, p.offset, p.top_k, ScopeNames(r.scope), p.projection, annotate);
}

std::string HybridSearch(const QueryContext& ctx, const HybridParams& params) {
  // Both legs rank the same scope `candidates` deep, unfiltered by the page options.
  SearchParams leg = params.search;
  leg.offset = 0;
  leg.top_k = params.candidates;
  leg.limit_per.reset();
  leg.diversity.reset();
  RankedSearch vector = RankByVector(ctx, leg);
  TextRanking text = RankText(ctx, params.text, leg, params.candidates);

  // Each record either leg returned, with its 0-based rank and score in each (-1: not returned).
  struct Fused {
    Candidate candidate;
    int64_t vector_rank = -1, text_rank = -1;
    float vector_score = 0, text_score = 0;
  };
  std::map<std::pair<const Segment*, uint32_t>, Fused> fusion;
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
  std::vector<Candidate> fused;
  for (const auto& [key, f] : fusion) {
    double score = 0;
    if (f.vector_rank >= 0) score += params.vector_weight / (params.rrf_k + double(f.vector_rank + 1));
    if (f.text_rank >= 0) score += params.text_weight / (params.rrf_k + double(f.text_rank + 1));
    Candidate c = f.candidate;
    c.score = float(score);
    fused.push_back(c);
  }
  std::sort(fused.begin(), fused.end(), RanksBefore);
  ApplyRankPasses(fused, params.search, Dimension(fused));
  Annotator annotate;
  if (params.text.explain || params.text.highlight)
    annotate = [&](JsonWriter& w, const Candidate& c) {
      ctx.cancel.ThrowIfCancelled();
      const Fused& f = fusion.at({c.segment, c.row});
      w.Char('{');
      bool first = true;
      if (params.text.explain) {
        auto leg_json = [&](const char* name, int64_t rank, float score) {
          if (rank < 0) return;
          if (!first) w.Char(',');
          first = false;
          w.Char('"');
          w.Raw(name);
          w.Raw("\":{\"rank\":");
          w.UInt(uint64_t(rank));
          w.Raw(",\"score\":");
          w.Float(score);
          w.Char('}');
        };
        leg_json("vector", f.vector_rank, f.vector_score);
        leg_json("text", f.text_rank, f.text_score);
      }
      WriteTextAnnotations(w, params.text, text.prepared[c.collection], c, first);
      w.Char('}');
    };
  return WriteHits(fused, params.search.offset, params.search.top_k, ScopeNames(vector.scope), params.search.projection, annotate);
}

}  // namespace tessera
