#include "query/text_annotations.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis/analyzer.h"
#include "query/highlight.h"

namespace tessera {
namespace {

// annotations.clauses: each matched clause in query order.
void WriteClauses(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c) {
  w.Key("clauses");
  JsonWriter::Scope clauses = w.Array();
  for (size_t i = 0; i < pc.clauses.size(); ++i) {
    double score = ClauseScore(pc.clauses[i], pc.text, c.segment, c.row);
    if (score < 0) continue;
    JsonWriter::Scope clause = w.Object();
    w.Member("field", q.clauses[i].field);
    w.Member("score", score);
    if (pc.clauses[i].prefix) {
      w.Key("expansion");
      JsonWriter::Scope expansion = w.Object();
      w.Member("matched", pc.clauses[i].matched);
      w.Member("scored", pc.clauses[i].scored);
    }
  }
}

void WriteFragments(JsonWriter& w, const std::vector<Fragment>& fragments) {
  JsonWriter::Scope list = w.Array();
  for (const Fragment& fragment : fragments) {
    JsonWriter::Scope object = w.Object();
    w.Member("text", fragment.text);
    w.Key("spans");
    JsonWriter::Scope spans = w.Array();
    for (const auto& [begin, end] : fragment.spans) {
      JsonWriter::Scope span = w.Array();
      w.UInt(begin);
      w.UInt(end);
    }
  }
}

// annotations.highlights: per clause field (first-mention order) holding a matching word.
void WriteHighlights(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c) {
  std::vector<int> fields;
  for (const PreparedClause& clause : pc.clauses)
    if (clause.field >= 0 && std::find(fields.begin(), fields.end(), clause.field) == fields.end()) fields.push_back(clause.field);
  w.Key("highlights");
  JsonWriter::Scope highlights = w.Array();
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
    JsonWriter::Scope highlight = w.Object();
    w.Member("field", pc.text.field(field).field);
    w.Key("fragments");
    WriteFragments(w, fragments);
  }
}

}  // namespace

void WriteTextAnnotations(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c) {
  if (q.explain) WriteClauses(w, q, pc, c);
  if (q.highlight) WriteHighlights(w, q, pc, c);
}

}  // namespace tessera
