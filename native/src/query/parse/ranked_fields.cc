#include "query/parse/ranked_fields.h"

#include <cmath>

#include "query/parse/body_reader.h"
#include "util/json_reader.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

const char* AllowedFields(SearchKind kind) {
  switch (kind) {
    case SearchKind::kSimilar:
      return "collection, id, scope, top_k, offset, min_score, exact, filter, include_attributes, exclude_attributes, "
             "limit_per, diversity, rank_by, expand, plan";
    case SearchKind::kText:
      return "field, query, prefix, clauses, combine, explain, highlight, scope, top_k, offset, min_score, filter, "
             "include_attributes, exclude_attributes, limit_per, diversity, rank_by, expand, rerank";
    case SearchKind::kHybrid:
      return "vector, field, text, prefix, clauses, combine, explain, highlight, scope, top_k, offset, filter, "
             "include_attributes, exclude_attributes, limit_per, diversity, expand, rrf_k, candidates, vector_weight, "
             "text_weight, plan, rerank";
    case SearchKind::kBatchLeg:
      return "query, scope, top_k, offset, min_score, exact, filter, include_attributes, exclude_attributes, "
             "limit_per, diversity, rank_by, expand, names, name_weights, pool";
    default:
      return "query, scope, top_k, offset, min_score, exact, filter, include_attributes, exclude_attributes, "
             "limit_per, diversity, rank_by, expand, names, name_weights, pool, plan, rerank";
  }
}

LimitPer ReadLimitPer(element e, const std::string& field) {
  LimitPer lp;
  bool has_field = false, has_max = false;
  for (auto [k, v] : ExpectObject(e, field)) {
    if (k == "field") {
      lp.field = JsonString(v, field + ".field");
      has_field = true;
    } else if (k == "max") {
      lp.max = ExpectCount(v, field + ".max", UINT32_MAX);
      has_max = true;
    } else if (k == "missing") {
      std::string missing = JsonString(v, field + ".missing");
      if (missing != "shared" && missing != "own")
        Bad(field + ".missing must be \"shared\" (one group) or \"own\" (a group each), got \"" + missing + "\"");
      lp.missing_own_group = missing == "own";
    } else {
      UnknownField(k, " in " + field, "field, max, missing");
    }
  }
  if (!has_field || lp.field.empty()) Bad(field + ".field is required: the attribute whose values are capped");
  if (!has_max) Bad(field + ".max is required (at least 1)");
  if (lp.max < 1) Bad(field + ".max must be at least 1");
  return lp;
}

RerankParams ReadRerank(element e, const std::string& field) {
  RerankParams r;
  for (auto [k, v] : ExpectObject(e, field)) {
    if (v.type() == element_type::NULL_VALUE) continue;  // null reads as the field left out
    if (k == "query") {
      r.query = JsonString(v, field + ".query");
    } else if (k == "overscan") {
      r.overscan = ExpectCount(v, field + ".overscan", kMaxRankDepth);
      if (r.overscan < 1) Bad(field + ".overscan must be a whole number from 1 to 10000, got 0");
    } else if (k == "text_attr") {
      r.text_attr = JsonString(v, field + ".text_attr");
      if (r.text_attr.empty()) Bad(field + ".text_attr must be a non-empty attribute name");
    } else {
      UnknownField(std::string(field) + "." + std::string(k), "", "query, overscan, text_attr");
    }
  }
  return r;
}

// The member a numeric rank_by.Decay key sets, or null.
double DecayRank::*DecayNumber(std::string_view key) {
  static constexpr std::pair<std::string_view, double DecayRank::*> kNumbers[] = {{"scale", &DecayRank::scale},
                                                                                  {"decay", &DecayRank::decay},
                                                                                  {"lambda", &DecayRank::lambda},
                                                                                  {"missing", &DecayRank::missing},
                                                                                  {"count_scale", &DecayRank::count_scale},
                                                                                  {"count_lambda", &DecayRank::count_lambda}};
  for (const auto& [name, member] : kNumbers)
    if (key == name) return member;
  return nullptr;
}

DecayRank ReadRankBy(element e, const std::string& field) {
  object outer = ExpectObject(e, field);
  if (outer.size() != 1 || (*outer.begin()).key != "Decay") Bad(field + " must be {\"Decay\": {...}}, the only ranking expression");
  std::string where = field + ".Decay";
  DecayRank d;
  bool has_field = false, has_origin = false;
  for (auto [k, v] : ExpectObject((*outer.begin()).value, where)) {
    std::string f = where + "." + std::string(k);
    if (k == "field") {
      d.field = JsonString(v, f);
      has_field = true;
    } else if (k == "origin") {
      if (v.type() != element_type::INT64) Bad(f + " must be an integer (epoch milliseconds)");
      d.origin = v.get_int64().value();
      has_origin = true;
    } else if (k == "count_field") {
      d.count_field = JsonString(v, f);
    } else if (double DecayRank::*number = DecayNumber(k)) {
      d.*number = ExpectFinite(v, f);
    } else {
      UnknownField(k, " in " + where, "field, origin, scale, decay, lambda, missing, count_field, count_scale, count_lambda");
    }
  }
  if (!has_field) Bad(where + ".field is required (it may be \"\" when only the count term is wanted)");
  if (!has_origin) Bad(where + ".origin is required: \"now\" in epoch milliseconds");
  if (!(d.scale > 0)) Bad(where + ".scale must be positive");
  if (!(d.decay > 0 && d.decay < 1)) Bad(where + ".decay must be between 0 and 1 (exclusive)");
  if (d.lambda < 0) Bad(where + ".lambda must not be negative");
  if (d.missing < 0 || d.missing > 1) Bad(where + ".missing must be between 0 and 1");
  if (d.count_lambda < 0) Bad(where + ".count_lambda must not be negative");
  if (!d.count_field.empty() && !(d.count_scale > 0)) Bad(where + ".count_scale must be positive when count_field is set");
  return d;
}

// An attribute name of expand: a string naming the attribute, never empty (spec).
std::string ReadExpandField(element e, const std::string& field, const char* holds) {
  std::string name = JsonString(e, field);
  if (name.empty()) Bad(field + " must not be empty: name the attribute holding " + holds + " (or leave it out for the default)");
  return name;
}

ExpandParams ReadExpand(element e, const std::string& field) {
  ExpandParams x;
  for (auto [k, v] : ExpectObject(e, field)) {
    std::string f = field + "." + std::string(k);
    if (k == "radius")
      x.radius = ExpectCount(v, f, kMaxExpandRadius);
    else if (k == "parent_field")
      x.parent_field = ReadExpandField(v, f, "each chunk's parent document id");
    else if (k == "index_field")
      x.index_field = ReadExpandField(v, f, "each chunk's position in its parent");
    else if (k == "text_field")
      x.text_field = ReadExpandField(v, f, "each chunk's text");
    else
      UnknownField(k, " in " + field, "radius, parent_field, index_field, text_field");
  }
  return x;
}

}  // namespace

// Consumes one field of a /search-shaped body; kind says which fields this route accepts.
void ReadSearchField(std::string_view key, element value, SearchParams& p, SearchKind kind, const std::string& prefix, uint32_t dim,
                     Metric metric, bool* has_query) {
  std::string f = prefix + std::string(key);
  bool vector_fields = kind == SearchKind::kSearch || kind == SearchKind::kBatchLeg;
  bool ranked_fields = kind != SearchKind::kHybrid;  // min_score, rank_by, exact
  bool plan_field = kind != SearchKind::kText;
  auto unknown = [&] {
    UnknownField(key, prefix.empty() ? std::string(" in the request body") : " in " + prefix.substr(0, prefix.size() - 1),
                 AllowedFields(kind));
  };
  if ((key == "min_score" || key == "rank_by" || key == "exact") && !ranked_fields) unknown();
  if (key == "plan" && !plan_field) unknown();
  if (key == "exact" && kind == SearchKind::kText) unknown();
  if (key == "query" && vector_fields) {
    if (dim == 0) Bad(f + ": this store has dimension 0 (keyword-only); vector search is not possible");
    std::vector<float> floats;
    ReadVector(value, f, dim, metric, &floats);
    p.query = std::move(floats);
    *has_query = true;
  } else if (key == "scope") {
    p.scope = ExpectStrings(value, f);
  } else if (key == "top_k") {
    p.top_k = ExpectCount(value, f, kMaxRankDepth);
  } else if (key == "offset") {
    p.offset = ExpectCount(value, f, kMaxRankDepth);
  } else if (key == "min_score") {
    if (value.type() != element_type::NULL_VALUE) p.min_score = ExpectFinite(value, f);
  } else if (key == "exact") {
    p.exact = ExpectBool(value, f);
  } else if (key == "include_attributes") {
    p.projection.include = ExpectStrings(value, f);
  } else if (key == "exclude_attributes") {
    p.projection.exclude = ExpectStrings(value, f);
  } else if (key == "filter") {
    p.filter = Filter::Compile(value, f);
  } else if (key == "limit_per") {
    if (value.type() != element_type::NULL_VALUE) p.limit_per = ReadLimitPer(value, f);
  } else if (key == "diversity") {
    if (value.type() == element_type::NULL_VALUE) return;
    double lambda = ExpectNumber(value, f);
    if (!std::isfinite(lambda) || lambda < 0 || lambda > 1) Bad(f + " must be a number from 0.0 to 1.0 (1.0 = pure relevance)");
    p.diversity = lambda;
  } else if (key == "rank_by") {
    if (value.type() != element_type::NULL_VALUE) p.rank_by = ReadRankBy(value, f);
  } else if (key == "expand") {
    if (value.type() != element_type::NULL_VALUE) p.expand = ReadExpand(value, f);
  } else if (key == "names" && vector_fields) {
    p.names = ExpectStrings(value, f);
  } else if (key == "name_weights" && vector_fields) {
    for (auto [name, w] : ExpectObject(value, f)) p.name_weights[std::string(name)] = float(ExpectFinite(w, f + "." + std::string(name)));
  } else if (key == "pool" && vector_fields) {
    std::string pool = JsonString(value, f);
    if (pool == "Max")
      p.pool = Pool::kMax;
    else if (pool == "Sum")
      p.pool = Pool::kSum;
    else
      Bad(f + " must be \"Max\" or \"Sum\", got \"" + pool + "\"");
  } else if ((key == "plan" || key == "rerank") && kind == SearchKind::kBatchLeg) {
    Bad(f + ": " + std::string(key) + " is not allowed inside a batch");
  } else if (key == "plan") {
    p.plan = ExpectBool(value, f);
  } else if (kind == SearchKind::kSimilar &&
             (key == "query" || key == "names" || key == "name_weights" || key == "pool" || key == "rerank")) {
    Bad(f + " is not accepted by /search/similar: it always searches with the source record's default vector");
  } else if (key == "rerank") {
    if (value.type() != element_type::NULL_VALUE) p.rerank = ReadRerank(value, f);
  } else {
    unknown();
  }
}

void CheckSearch(const SearchParams& p, const std::string& prefix) {
  if (p.projection.include && p.projection.exclude) Bad(prefix + "include_attributes and exclude_attributes cannot both be sent; pick one");
  if (uint64_t(p.offset) + p.top_k > kMaxRankDepth)
    Bad(prefix + "offset + top_k must not exceed 10000 (got " + std::to_string(uint64_t(p.offset) + p.top_k) + ")");
}

}  // namespace tessera
