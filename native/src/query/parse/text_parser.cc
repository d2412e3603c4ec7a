#include "query/parse/text_parser.h"

#include <cmath>
#include <optional>

#include "query/parse/body_reader.h"
#include "query/parse/ranked_fields.h"
#include "util/json_reader.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

constexpr size_t kMaxClauses = 64;

// The text leg as the request spells it: field + query (+ prefix), or clauses.
struct TextSpelling {
  std::optional<std::string> field, query;
  bool prefix = false;
  bool has_clauses = false;
};

HighlightParams ReadHighlight(element e, const std::string& field) {
  HighlightParams h;
  for (auto [k, v] : ExpectObject(e, field)) {
    std::string f = field + "." + std::string(k);
    if (k == "max_fragments") {
      h.max_fragments = ExpectCount(v, f, 100);
      if (h.max_fragments < 1) Bad(f + " must be at least 1");
    } else if (k == "fragment_chars") {
      h.fragment_chars = ExpectCount(v, f, 10000);
      if (h.fragment_chars < 1) Bad(f + " must be at least 1");
    } else {
      UnknownField(k, " in " + field, "max_fragments, fragment_chars");
    }
  }
  return h;
}

// query_key names the route's single-spelling text ("query" or "text"), for the message.
std::vector<TextClause> ReadClauses(element e, const char* query_key) {
  auto items = ExpectArray(e, "clauses");
  if (items.size() == 0)
    Bad(std::string("clauses must not be empty: send at least one {\"field\", \"query\"}, or use field + ") + query_key);
  if (items.size() > kMaxClauses)
    Bad("clauses holds " + std::to_string(items.size()) + " clauses; at most " + std::to_string(kMaxClauses) +
        " are allowed (put several words in one clause's query)");
  std::vector<TextClause> clauses;
  size_t i = 0;
  for (element item : items) {
    std::string where = "clauses[" + std::to_string(i++) + "]";
    TextClause c;
    bool has_field = false, has_query = false;
    for (auto [k, v] : ExpectObject(item, where)) {
      if (k == "field") {
        c.field = JsonString(v, where + ".field");
        has_field = true;
      } else if (k == "query") {
        c.query = JsonString(v, where + ".query");
        has_query = true;
      } else if (k == "prefix") {
        c.prefix = ExpectBool(v, where + ".prefix");
      } else {
        UnknownField(k, " in " + where, "field, query, prefix");
      }
    }
    if (!has_field || c.field.empty()) Bad(where + ".field is required: a full-text field name");
    if (!has_query) Bad(where + ".query is required: the text to search for");
    clauses.push_back(std::move(c));
  }
  return clauses;
}

// Consumes a key of the text leg (query_key names the single-spelling text: "query" or "text");
// false when key is not one of them.
bool ReadTextField(std::string_view key, element v, const char* query_key, TextQuery& q, TextSpelling& s) {
  std::string f(key);
  if (key == "field") {
    s.field = JsonString(v, f);
  } else if (key == query_key) {
    s.query = JsonString(v, f);
  } else if (key == "prefix") {
    s.prefix = ExpectBool(v, f);
  } else if (key == "clauses") {
    q.clauses = ReadClauses(v, query_key);
    s.has_clauses = true;
  } else if (key == "combine") {
    std::string combine = JsonString(v, f);
    if (combine == "Sum")
      q.combine = Combine::kSum;
    else if (combine == "Max")
      q.combine = Combine::kMax;
    else
      Bad("combine must be \"Sum\" or \"Max\", got \"" + combine + "\"");
  } else if (key == "explain") {
    q.explain = ExpectBool(v, f);
  } else if (key == "highlight") {
    if (v.type() != element_type::NULL_VALUE) q.highlight = ReadHighlight(v, f);
  } else {
    return false;
  }
  return true;
}

void FinishText(TextQuery& q, const TextSpelling& s, const std::string& query_key) {
  if (s.has_clauses) {
    if (s.field || s.query) Bad("field + " + query_key + " cannot be sent together with clauses; use one spelling");
    return;
  }
  if (!s.field || s.field->empty() || !s.query)
    Bad("field and " + query_key + " are required (or clauses: [{\"field\", \"query\", \"prefix\"?}, ...])");
  q.clauses = {TextClause{*s.field, *s.query, s.prefix}};
}

}  // namespace

TextSearchParams ParseTextSearch(std::string_view body) {
  RequestBody parsed(body);
  TextSearchParams p;
  TextSpelling spelling;
  bool unused = false;
  for (auto [key, value] : parsed.Object())
    if (!ReadTextField(key, value, "query", p.text, spelling))
      ReadSearchField(key, value, p.search, SearchKind::kText, "", 0, Metric::kCosine, &unused);
  FinishText(p.text, spelling, "query");
  CheckSearch(p.search, "");
  // rerank.query defaults to the single spelling's query; with clauses there is no one text.
  if (p.search.rerank && p.search.rerank->query.empty() && !spelling.has_clauses) p.search.rerank->query = p.text.clauses[0].query;
  return p;
}

HybridParams ParseHybridSearch(std::string_view body, uint32_t dim, Metric metric) {
  RequestBody parsed(body);
  HybridParams p;
  TextSpelling spelling;
  bool has_vector = false, unused = false;
  for (auto [key, value] : parsed.Object()) {
    std::string f(key);
    if (ReadTextField(key, value, "text", p.text, spelling)) continue;
    if (key == "vector") {
      if (dim == 0) Bad("vector: this store has dimension 0 (keyword-only); the vector leg of a hybrid search is not possible");
      ReadVector(value, f, dim, metric, &p.search.query);
      has_vector = true;
    } else if (key == "rrf_k") {
      p.rrf_k = ExpectFinite(value, f);
      if (p.rrf_k < 0) Bad("rrf_k must not be negative");
    } else if (key == "candidates") {
      p.candidates = ExpectCount(value, f, kMaxRankDepth);
      if (p.candidates < 1) Bad("candidates must be at least 1");
    } else if (key == "vector_weight" || key == "text_weight") {
      double w = ExpectNumber(value, f);
      if (!std::isfinite(w) || w < 0) Bad(f + " must be a finite number >= 0 (1.0 = unweighted)");
      (key == "vector_weight" ? p.vector_weight : p.text_weight) = w;
    } else {
      ReadSearchField(key, value, p.search, SearchKind::kHybrid, "", dim, metric, &unused);
    }
  }
  if (!has_vector) {
    if (dim == 0) Bad("vector: this store has dimension 0 (keyword-only); the vector leg of a hybrid search is not possible");
    Bad("vector is required: an array of " + std::to_string(dim) + " numbers");
  }
  FinishText(p.text, spelling, "text");
  CheckSearch(p.search, "");
  return p;
}

SuggestParams ParseSuggest(std::string_view body) {
  RequestBody parsed(body);
  SuggestParams p;
  bool has_field = false, has_prefix = false;
  for (auto [key, value] : parsed.Object()) {
    std::string f(key);
    if (key == "field") {
      p.field = JsonString(value, f);
      has_field = true;
    } else if (key == "prefix") {
      p.prefix = JsonString(value, f);
      has_prefix = true;
    } else if (key == "scope") {
      p.scope = ExpectStrings(value, f);
    } else if (key == "filter") {
      p.filter = Filter::Compile(value, f);
    } else if (key == "limit") {
      p.limit = ExpectCount(value, f, kMaxRankDepth);
    } else if (key == "fuzzy") {
      p.fuzzy = ExpectBool(value, f);
    } else {
      UnknownField(key, " in the suggest body", "field, prefix, scope, filter, limit, fuzzy");
    }
  }
  if (!has_field || p.field.empty()) Bad("field is required: the full-text field to complete from");
  if (!has_prefix) Bad("prefix is required: the phrase typed so far");
  return p;
}

}  // namespace tessera
