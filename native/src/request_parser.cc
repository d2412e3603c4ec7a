#include "tessera/request_parser.h"

#include <simdjson.h>

#include <cmath>
#include <set>

#include "json_reader.h"
#include "tessera/error.h"
#include "tessera/value.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

[[noreturn]] void Bad(const std::string& m) { throw BadRequest(m); }

// Parses body as one JSON document into the calling thread's parser, whose buffers are reused
// across requests; the element is valid until this thread parses the next body.
element ParseBody(std::string_view body, simdjson::padded_string& copy) {
  thread_local simdjson::dom::parser parser;
  copy = simdjson::padded_string(body);
  auto result = parser.parse(copy);
  switch (result.error()) {
    case simdjson::SUCCESS: break;
    case simdjson::EMPTY: Bad("request body is empty; send a JSON object");
    case simdjson::BIGINT_ERROR: Bad("a number is out of range: integers must fit in signed 64 bits (use Float for larger)");
    case simdjson::NUMBER_ERROR: Bad("a number is malformed or outside the 64-bit float range");
    case simdjson::UTF8_ERROR: Bad("the body is not valid UTF-8");
    case simdjson::DEPTH_ERROR: Bad("the JSON is nested too deeply");
    default:
      if (body.empty()) Bad("request body is empty; send a JSON object");
      Bad(std::string("malformed JSON: ") + simdjson::error_message(result.error()));
  }
  return result.value();
}

object ExpectObject(element e, const std::string& field) {
  if (e.type() != element_type::OBJECT) Bad(field + " must be an object, got " + JsonTypeName(e.type()));
  return e.get_object().value();
}

simdjson::dom::array ExpectArray(element e, const std::string& field) {
  if (e.type() != element_type::ARRAY) Bad(field + " must be an array, got " + JsonTypeName(e.type()));
  return e.get_array().value();
}


double ExpectNumber(element e, const std::string& field) {
  switch (e.type()) {
    case element_type::INT64: return double(e.get_int64().value());
    case element_type::UINT64: return double(e.get_uint64().value());
    case element_type::DOUBLE: return e.get_double().value();
    default: Bad(field + " must be a number, got " + JsonTypeName(e.type()));
  }
}

bool ExpectBool(element e, const std::string& field) {
  if (e.type() != element_type::BOOL) Bad(field + " must be true or false, got " + JsonTypeName(e.type()));
  return e.get_bool().value();
}

uint32_t ExpectCount(element e, const std::string& field, uint32_t max) {
  if (e.type() == element_type::DOUBLE) {
    double d = e.get_double().value();
    if (d != std::floor(d)) Bad(field + " must be a whole number, got " + std::to_string(d));
  }
  if (e.type() == element_type::INT64 && e.get_int64().value() < 0) Bad(field + " must not be negative");
  double v = ExpectNumber(e, field);
  if (v < 0) Bad(field + " must not be negative");
  if (v > max) Bad(field + " must be at most " + std::to_string(max));
  return uint32_t(v);
}

std::vector<std::string> ExpectStrings(element e, const std::string& field) {
  std::vector<std::string> out;
  size_t i = 0;
  for (element item : ExpectArray(e, field)) out.push_back(JsonString(item, field + "[" + std::to_string(i++) + "]"));
  return out;
}

[[noreturn]] void UnknownField(std::string_view key, const std::string& where, const char* allowed) {
  Bad("unknown field '" + std::string(key) + "'" + where + "; allowed: " + allowed);
}

// Appends a vector to floats, checking length, finiteness and (for Cosine) a usable norm, which it
// normalizes away so that score = dot product.
size_t ReadVector(element e, const std::string& field, uint32_t dim, Metric metric, std::vector<float>* floats) {
  auto arr = ExpectArray(e, field);
  size_t n = arr.size();
  if (dim == 0) Bad(field + ": this store has dimension 0 (keyword-only) and holds no vectors");
  if (n != dim) Bad(field + " has length " + std::to_string(n) + " but the store dimension is " + std::to_string(dim));
  size_t offset = floats->size();
  floats->resize(offset + dim);
  float* out = floats->data() + offset;
  size_t i = 0;
  double norm = 0;
  for (element x : arr) {
    double v;
    switch (x.type()) {
      case element_type::DOUBLE: v = x.get_double().value(); break;
      case element_type::INT64: v = double(x.get_int64().value()); break;
      case element_type::UINT64: v = double(x.get_uint64().value()); break;
      default: floats->resize(offset); Bad(field + "[" + std::to_string(i) + "] must be a number, got " + JsonTypeName(x.type()));
    }
    float f = float(v);
    if (!std::isfinite(f)) {
      floats->resize(offset);
      Bad(field + "[" + std::to_string(i) + "] is outside the 32-bit float range");
    }
    out[i++] = f;
    norm += double(f) * f;
  }
  if (metric == Metric::kCosine) {
    if (norm == 0) Bad(field + " has zero length; the Cosine metric needs a non-zero vector");
    float inv = float(1.0 / std::sqrt(norm));
    for (uint32_t k = 0; k < dim; ++k) out[k] *= inv;
  }
  return offset;
}

void ReadValue(AttrEncoder& enc, std::string_view key, element e, const std::string& field) {
  JsonValue v = ReadJsonValue(e, field);
  switch (v.tag) {
    case ValueTag::kStr: enc.AddStr(key, v.s); break;
    case ValueTag::kInt: enc.AddInt(key, v.i); break;
    case ValueTag::kDateTime: enc.AddDateTime(key, v.i); break;
    case ValueTag::kBool: enc.AddBool(key, v.i != 0); break;
    case ValueTag::kFloat: enc.AddFloat(key, v.f); break;
    case ValueTag::kList: enc.AddList(key, v.list); break;
    case ValueTag::kNull: enc.AddNull(key); break;
  }
}

Filter ReadFilter(element e, const std::string& field) {
  if (e.type() == element_type::NULL_VALUE) return Filter();
  return Filter::Compile(simdjson::to_string(e), field);
}

// Reserved keys are the store's own; callers cannot forge them.
bool IsReserved(std::string_view key) { return key.substr(0, 4) == "svc."; }

}  // namespace

UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  UpsertOp op;
  op.collection = collection;
  bool seen = false;
  for (auto [key, value] : root) {
    if (key != "records") UnknownField(key, " in the upsert body", "records");
    seen = true;
    auto records = ExpectArray(value, "records");
    op.records.reserve(records.size());
    op.floats.reserve(records.size() * dim);
    size_t i = 0;
    for (element r : records) {
      std::string where = "records[" + std::to_string(i++) + "]";
      RecordInput rec;
      bool has_id = false;
      for (auto [k, v] : ExpectObject(r, where)) {
        if (k == "id") {
          rec.id = JsonString(v, where + ".id");
          if (rec.id.empty()) Bad(where + ".id must not be empty");
          has_id = true;
        } else if (k == "vector") {
          if (v.type() == element_type::NULL_VALUE) continue;
          rec.vector_offset = int64_t(ReadVector(v, where + ".vector", dim, metric, &op.floats));
        } else if (k == "vectors") {
          for (auto [name, vec] : ExpectObject(v, where + ".vectors")) {
            std::string n(name);
            if (n == "default") Bad(where + ".vectors: the name 'default' is reserved for the record's main vector; send it as 'vector'");
            for (const NamedVectorInput& seen_nv : rec.named)
              if (seen_nv.name == n) Bad(where + ".vectors names '" + n + "' twice");
            rec.named.push_back({n, ReadVector(vec, where + ".vectors." + n, dim, metric, &op.floats)});
          }
        } else if (k == "attrs") {
          AttrEncoder enc;
          for (auto [ak, av] : ExpectObject(v, where + ".attrs")) {
            if (IsReserved(ak)) continue;
            if (ak.size() > 0xFFFF) Bad(where + ".attrs has a key longer than 65535 bytes");
            ReadValue(enc, ak, av, where + ".attrs." + std::string(ak));
          }
          rec.attrs = enc.Finish();
        } else {
          UnknownField(k, " in " + where, "id, vector, vectors, attrs");
        }
      }
      if (!has_id) Bad(where + " has no id; every record needs a string id");
      op.records.push_back(std::move(rec));
    }
  }
  if (!seen) Bad("the upsert body needs a records array: {\"records\": [{\"id\": ..., \"vector\": [...]}]}");
  return op;
}

DeleteRequest ParseDelete(std::string_view body) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  DeleteRequest req;
  bool seen = false;
  for (auto [key, value] : root) {
    if (key == "ids") {
      req.ids = ExpectStrings(value, "ids");
      seen = true;
    } else if (key == "filter") {
      if (value.type() == element_type::NULL_VALUE) continue;  // absent: ids decide
      req.filter = ReadFilter(value, "filter");
      seen = true;
    } else {
      UnknownField(key, " in the delete body", "ids, filter");
    }
  }
  if (!seen) Bad("the delete body needs ids or a filter: {\"ids\": [\"a\", \"b\"]} or {\"filter\": [...]}");
  return req;
}

namespace {

enum class SearchKind { kSearch, kSimilar, kBatchLeg, kText, kHybrid };

const char* AllowedFields(SearchKind kind) {
  switch (kind) {
    case SearchKind::kSimilar:
      return "collection, id, scope, top_k, offset, min_score, exact, filter, include_attributes, exclude_attributes, "
             "limit_per, diversity, rank_by, plan";
    case SearchKind::kText:
      return "field, query, prefix, clauses, combine, explain, highlight, scope, top_k, offset, min_score, filter, "
             "include_attributes, exclude_attributes, limit_per, diversity, rank_by";
    case SearchKind::kHybrid:
      return "vector, field, text, prefix, clauses, combine, explain, highlight, scope, top_k, offset, filter, "
             "include_attributes, exclude_attributes, limit_per, diversity, rrf_k, candidates, vector_weight, "
             "text_weight, plan";
    default:
      return "query, scope, top_k, offset, min_score, exact, filter, include_attributes, exclude_attributes, "
             "limit_per, diversity, rank_by, names, name_weights, pool, plan";
  }
}

double ExpectFinite(element e, const std::string& field) {
  double v = ExpectNumber(e, field);
  if (!std::isfinite(v)) Bad(field + " must be a finite number");
  return v;
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
    } else {
      UnknownField(k, " in " + field, "field, max");
    }
  }
  if (!has_field || lp.field.empty()) Bad(field + ".field is required: the attribute whose values are capped");
  if (!has_max) Bad(field + ".max is required (at least 1)");
  if (lp.max < 1) Bad(field + ".max must be at least 1");
  return lp;
}

DecayRank ReadRankBy(element e, const std::string& field) {
  object outer = ExpectObject(e, field);
  if (outer.size() != 1 || (*outer.begin()).key != "Decay")
    Bad(field + " must be {\"Decay\": {...}}, the only ranking expression");
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
    } else if (k == "scale") {
      d.scale = ExpectFinite(v, f);
    } else if (k == "decay") {
      d.decay = ExpectFinite(v, f);
    } else if (k == "lambda") {
      d.lambda = ExpectFinite(v, f);
    } else if (k == "missing") {
      d.missing = ExpectFinite(v, f);
    } else if (k == "count_field") {
      d.count_field = JsonString(v, f);
    } else if (k == "count_scale") {
      d.count_scale = ExpectFinite(v, f);
    } else if (k == "count_lambda") {
      d.count_lambda = ExpectFinite(v, f);
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

// Consumes one field of a /search-shaped body; kind says which fields this route accepts.
void ReadSearchField(std::string_view key, element value, SearchParams& p, SearchKind kind, const std::string& prefix,
                     uint32_t dim, Metric metric, bool* has_query) {
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
    p.filter = ReadFilter(value, f);
  } else if (key == "limit_per") {
    if (value.type() != element_type::NULL_VALUE) p.limit_per = ReadLimitPer(value, f);
  } else if (key == "diversity") {
    if (value.type() == element_type::NULL_VALUE) return;
    double lambda = ExpectNumber(value, f);
    if (!std::isfinite(lambda) || lambda < 0 || lambda > 1) Bad(f + " must be a number from 0.0 to 1.0 (1.0 = pure relevance)");
    p.diversity = lambda;
  } else if (key == "rank_by") {
    if (value.type() != element_type::NULL_VALUE) p.rank_by = ReadRankBy(value, f);
  } else if (key == "names" && vector_fields) {
    p.names = ExpectStrings(value, f);
  } else if (key == "name_weights" && vector_fields) {
    for (auto [name, w] : ExpectObject(value, f)) p.name_weights[std::string(name)] = float(ExpectFinite(w, f + "." + std::string(name)));
  } else if (key == "pool" && vector_fields) {
    std::string pool = JsonString(value, f);
    if (pool == "Max") p.pool = Pool::kMax;
    else if (pool == "Sum") p.pool = Pool::kSum;
    else Bad(f + " must be \"Max\" or \"Sum\", got \"" + pool + "\"");
  } else if ((key == "plan" || key == "rerank") && kind == SearchKind::kBatchLeg) {
    Bad(f + ": " + std::string(key) + " is not allowed inside a batch");
  } else if (key == "plan") {
    if (ExpectBool(value, f)) Bad(f + ": query plans are not available in this version; omit plan or send false");
  } else if (kind == SearchKind::kSimilar && (key == "query" || key == "names" || key == "name_weights" || key == "pool" || key == "rerank")) {
    Bad(f + " is not accepted by /search/similar: it always searches with the source record's default vector");
  } else if (key == "rerank" || key == "expand") {
    Bad(f + " is not available in this version of the store");
  } else {
    unknown();
  }
}

void CheckSearch(const SearchParams& p, const std::string& prefix) {
  if (p.projection.include && p.projection.exclude)
    Bad(prefix + "include_attributes and exclude_attributes cannot both be sent; pick one");
  if (uint64_t(p.offset) + p.top_k > kMaxRankDepth)
    Bad(prefix + "offset + top_k must not exceed 10000 (got " + std::to_string(uint64_t(p.offset) + p.top_k) + ")");
}

SearchParams ReadSearchObject(element e, const std::string& prefix, SearchKind kind, uint32_t dim, Metric metric) {
  SearchParams p;
  bool has_query = false;
  for (auto [key, value] : ExpectObject(e, prefix.empty() ? "request body" : prefix.substr(0, prefix.size() - 1)))
    ReadSearchField(key, value, p, kind, prefix, dim, metric, &has_query);
  if (!has_query) {
    if (dim == 0) Bad(prefix + "query: this store has dimension 0 (keyword-only); vector search is not possible");
    Bad(prefix + "query is required: an array of " + std::to_string(dim) + " numbers");
  }
  CheckSearch(p, prefix);
  return p;
}

}  // namespace

SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric) {
  simdjson::padded_string copy;
  return ReadSearchObject(ParseBody(body, copy), "", SearchKind::kSearch, dim, metric);
}

SimilarParams ParseSimilar(std::string_view body) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  SimilarParams sp;
  bool unused = false;
  for (auto [key, value] : root) {
    if (key == "collection") sp.collection = JsonString(value, "collection");
    else if (key == "id") sp.id = JsonString(value, "id");
    else ReadSearchField(key, value, sp.search, SearchKind::kSimilar, "", 0, Metric::kCosine, &unused);
  }
  if (sp.collection.empty()) Bad("collection is required: the collection of the source record");
  if (sp.id.empty()) Bad("id is required: the id of the source record");
  CheckSearch(sp.search, "");
  return sp;
}

BatchParams ParseBatch(std::string_view body, uint32_t dim, Metric metric) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  BatchParams b;
  bool has_queries = false;
  for (auto [key, value] : root) {
    if (key == "queries") {
      auto legs = ExpectArray(value, "queries");
      if (legs.size() < 1 || legs.size() > 16) Bad("queries must hold 1 to 16 search bodies, got " + std::to_string(legs.size()));
      size_t i = 0;
      for (element leg : legs)
        b.queries.push_back(ReadSearchObject(leg, "queries[" + std::to_string(i++) + "].", SearchKind::kBatchLeg, dim, metric));
      has_queries = true;
    } else if (key == "fuse") {
      if (value.type() == element_type::NULL_VALUE) continue;
      FuseParams fuse;
      for (auto [k, v] : ExpectObject(value, "fuse")) {
        std::string f = "fuse." + std::string(k);
        if (k == "rrf_k") {
          fuse.rrf_k = ExpectFinite(v, f);
          if (fuse.rrf_k < 0) Bad(f + " must not be negative");
        } else if (k == "weights") {
          size_t i = 0;
          for (element w : ExpectArray(v, f)) {
            double weight = ExpectFinite(w, f + "[" + std::to_string(i++) + "]");
            if (weight < 0) Bad(f + " must not hold negative weights");
            fuse.weights.push_back(weight);
          }
        } else if (k == "top_k") {
          fuse.top_k = ExpectCount(v, f, kMaxRankDepth);
        } else {
          UnknownField(k, " in fuse", "rrf_k, weights, top_k");
        }
      }
      b.fuse = fuse;
    } else {
      UnknownField(key, " in the batch body", "queries, fuse");
    }
  }
  if (!has_queries) Bad("queries is required: 1 to 16 search bodies");
  if (b.fuse && !b.fuse->weights.empty() && b.fuse->weights.size() != b.queries.size())
    Bad("fuse.weights must be empty or hold exactly one weight per query (" + std::to_string(b.queries.size()) + "), got " +
        std::to_string(b.fuse->weights.size()));
  return b;
}

namespace {

constexpr size_t kMaxClauses = 64;
constexpr double kMaxK1 = 1000;  // beyond it tf saturation is meaningless and scores lose precision

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

std::vector<TextClause> ReadClauses(element e) {
  auto items = ExpectArray(e, "clauses");
  if (items.size() == 0) Bad("clauses must not be empty: send at least one {\"field\", \"query\"}, or use field + query");
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
    q.clauses = ReadClauses(v);
    s.has_clauses = true;
  } else if (key == "combine") {
    std::string combine = JsonString(v, f);
    if (combine == "Sum") q.combine = Combine::kSum;
    else if (combine == "Max") q.combine = Combine::kMax;
    else Bad("combine must be \"Sum\" or \"Max\", got \"" + combine + "\"");
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
  simdjson::padded_string copy;
  TextSearchParams p;
  TextSpelling spelling;
  bool unused = false;
  for (auto [key, value] : ExpectObject(ParseBody(body, copy), "request body"))
    if (!ReadTextField(key, value, "query", p.text, spelling))
      ReadSearchField(key, value, p.search, SearchKind::kText, "", 0, Metric::kCosine, &unused);
  FinishText(p.text, spelling, "query");
  CheckSearch(p.search, "");
  return p;
}

HybridParams ParseHybridSearch(std::string_view body, uint32_t dim, Metric metric) {
  simdjson::padded_string copy;
  HybridParams p;
  TextSpelling spelling;
  bool has_vector = false, unused = false;
  for (auto [key, value] : ExpectObject(ParseBody(body, copy), "request body")) {
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
  simdjson::padded_string copy;
  SuggestParams p;
  bool has_field = false, has_prefix = false;
  for (auto [key, value] : ExpectObject(ParseBody(body, copy), "request body")) {
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
      p.filter = ReadFilter(value, f);
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

std::vector<FtsField> ParseFtsSchema(std::string_view body) {
  simdjson::padded_string copy;
  std::vector<FtsField> fields;
  bool seen = false;
  for (auto [key, value] : ExpectObject(ParseBody(body, copy), "request body")) {
    if (key != "fields") UnknownField(key, " in the fts-schema body", "fields");
    if (seen) Bad("fields is given twice; send one list");
    seen = true;
    size_t i = 0;
    for (element entry : ExpectArray(value, "fields")) {
      std::string where = "fields[" + std::to_string(i++) + "]";
      FtsField f;
      if (entry.type() == element_type::STRING) {
        f.field = JsonString(entry, where);
      } else {
        for (auto [k, v] : ExpectObject(entry, where)) {
          std::string fk = where + "." + std::string(k);
          if (k == "field") {
            f.field = JsonString(v, fk);
          } else if (k == "k1") {
            f.k1 = ExpectFinite(v, fk);
            if (f.k1 < 0 || f.k1 > kMaxK1) Bad(fk + " must be a number from 0 to 1000 (default 1.2)");
          } else if (k == "b") {
            f.b = ExpectFinite(v, fk);
            if (f.b < 0 || f.b > 1) Bad(fk + " must be between 0 and 1 (0 no length normalization, 1 full; default 0.75)");
          } else if (k == "language") {
            std::string language = JsonString(v, fk);
            if (language != "english") Bad(fk + ": only \"english\" exists, got \"" + language + "\"");
          } else if (k == "ascii_folding") {
            f.ascii_folding = ExpectBool(v, fk);
          } else if (k == "max_token_len") {
            if (v.type() == element_type::NULL_VALUE) continue;
            f.max_token_len = ExpectCount(v, fk, UINT32_MAX);
            if (f.max_token_len < 1) Bad(fk + " must be at least 1 (or omitted for no limit)");
          } else {
            UnknownField(k, " in " + where, "field, k1, b, language, ascii_folding, max_token_len");
          }
        }
      }
      if (f.field.empty()) Bad(where + " needs a field name: \"title\" or {\"field\": \"title\"}");
      for (const FtsField& other : fields)
        if (other.field == f.field) Bad(where + " declares '" + f.field + "' twice");
      fields.push_back(f);
    }
  }
  if (!seen) Bad("the fts-schema body needs fields: {\"fields\": [\"title\", {\"field\": \"body\", \"k1\": 1.2, \"b\": 0.75}]} ([] drops the schema)");
  return fields;
}

ListParams ParseList(std::string_view body) {
  ListParams p;
  if (body.empty()) return p;
  simdjson::padded_string copy;
  for (auto [key, value] : ExpectObject(ParseBody(body, copy), "request body")) {
    std::string f(key);
    if (key == "scope") p.scope = ExpectStrings(value, f);
    else if (key == "filter") p.filter = ReadFilter(value, f);
    else if (key == "offset") p.offset = ExpectCount(value, f, UINT32_MAX);
    else if (key == "limit") p.limit = ExpectCount(value, f, kMaxRankDepth);
    else if (key == "include_attributes") p.projection.include = ExpectStrings(value, f);
    else if (key == "exclude_attributes") p.projection.exclude = ExpectStrings(value, f);
    else if (key == "order_by") {
      if (value.type() == element_type::NULL_VALUE) continue;
      OrderBy ob;
      bool has_field = false;
      for (auto [k, v] : ExpectObject(value, f)) {
        if (k == "field") {
          ob.field = JsonString(v, "order_by.field");
          has_field = true;
        } else if (k == "descending") {
          ob.descending = ExpectBool(v, "order_by.descending");
        } else {
          UnknownField(k, " in order_by", "field, descending");
        }
      }
      if (!has_field || ob.field.empty()) Bad("order_by.field is required: the attribute to sort by");
      p.order_by = ob;
    } else {
      UnknownField(key, " in the list body", "scope, filter, offset, limit, include_attributes, exclude_attributes, order_by");
    }
  }
  if (p.projection.include && p.projection.exclude) Bad("include_attributes and exclude_attributes cannot both be sent; pick one");
  return p;
}

AggregateParams ParseAggregate(std::string_view body) {
  AggregateParams p;
  if (body.empty()) return p;
  simdjson::padded_string copy;
  for (auto [key, value] : ExpectObject(ParseBody(body, copy), "request body")) {
    if (key == "scope") p.scope = ExpectStrings(value, "scope");
    else if (key == "filter") p.filter = ReadFilter(value, "filter");
    else if (key == "sum") p.sum = ExpectStrings(value, "sum");
    else if (key == "group_by") {
      if (value.type() == element_type::NULL_VALUE) continue;
      p.group_by = JsonString(value, "group_by");
      if (p.group_by->empty()) Bad("group_by must name an attribute");
    } else {
      UnknownField(key, " in the aggregate body", "scope, filter, sum, group_by");
    }
  }
  return p;
}

std::map<std::string, std::string> ParseMeta(std::string_view body) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "metadata");
  std::map<std::string, std::string> out;
  for (auto [k, v] : root) out[std::string(k)] = JsonString(v, "metadata." + std::string(k));
  return out;
}

std::vector<std::string> ParseVectorNames(std::string_view body) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  std::vector<std::string> names;
  bool seen = false;
  for (auto [key, value] : root) {
    if (key != "names") UnknownField(key, " in the vector-names body", "names");
    names = ExpectStrings(value, "names");
    seen = true;
  }
  if (!seen) Bad("the vector-names body needs names: {\"names\": [\"title\", \"image\"]}");
  std::set<std::string> unique;
  for (const std::string& n : names) {
    if (n == "default") Bad("names: 'default' is reserved for the record's main vector and cannot be declared");
    if (n.empty() || n.size() > 128) Bad("names: a vector name must be 1 to 128 bytes");
    if (!unique.insert(n).second) Bad("names: '" + n + "' is listed twice");
  }
  if (names.size() > 16) Bad("names: at most 16 named vectors per collection");
  return names;
}

std::vector<FilterIndexField> ParseFilterIndex(std::string_view body) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  std::vector<FilterIndexField> fields;
  bool seen = false;
  for (auto [key, value] : root) {
    if (key != "fields") UnknownField(key, " in the filter-index body", "fields");
    seen = true;
    size_t i = 0;
    for (element entry : ExpectArray(value, "fields")) {
      std::string where = "fields[" + std::to_string(i++) + "]";
      FilterIndexField f;
      if (entry.type() == element_type::STRING) {
        f.field = JsonString(entry, where);
      } else {
        for (auto [k, v] : ExpectObject(entry, where)) {
          if (k == "field") f.field = JsonString(v, where + ".field");
          else if (k == "tokens") f.tokens = ExpectBool(v, where + ".tokens");
          else if (k == "trigrams") f.trigrams = ExpectBool(v, where + ".trigrams");
          else UnknownField(k, " in " + where, "field, tokens, trigrams");
        }
      }
      if (f.field.empty()) Bad(where + " needs a field name: \"title\" or {\"field\": \"title\"}");
      if (!f.tokens && !f.trigrams) Bad(where + " ('" + f.field + "') turns off both tokens and trigrams; keep at least one, or leave the field out");
      for (const FilterIndexField& other : fields)
        if (other.field == f.field) Bad(where + " declares '" + f.field + "' twice");
      fields.push_back(f);
    }
  }
  if (!seen) Bad("the filter-index body needs fields: {\"fields\": [\"title\", {\"field\": \"tags\", \"trigrams\": false}]} ([] drops the declaration)");
  return fields;
}

std::string ParseAliasTarget(std::string_view body) {
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(body, copy), "request body");
  std::string target;
  for (auto [key, value] : root) {
    if (key != "target") UnknownField(key, " in the alias body", "target");
    target = JsonString(value, "target");
  }
  if (target.empty()) Bad("the alias body needs a target collection: {\"target\": \"docs_v2\"}");
  return target;
}

}  // namespace tessera
