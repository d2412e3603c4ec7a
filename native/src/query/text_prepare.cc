#include "query/text_prepare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/analyzer.h"

namespace tessera {
namespace {

constexpr size_t kMaxExpansion = 256;

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
    std::sort(expansion.begin(), expansion.end(),
              [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    if (expansion.size() > kMaxExpansion) expansion.resize(kMaxExpansion);
    pc.scored = expansion.size();
    for (auto& [n, term] : expansion) df.try_emplace(std::move(term), n);
  }
  for (const auto& [term, n] : df)
    if (n > 0) pc.terms.push_back({term, Bm25Idf(stats.docs, n), n});
  return pc;
}

}  // namespace

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

double ClauseScore(const PreparedClause& clause, const CollectionText& text, const Segment* segment, uint32_t row) {
  if (clause.terms.empty()) return -1;
  for (const SegmentRef& ref : text.collection().segments) {
    const SegmentTextPtr& postings = ref.indexes->text();
    if (ref.segment.get() != segment || !postings) continue;
    const TextChunk* chunk = postings->ChunkOf(row);
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

}  // namespace tessera
