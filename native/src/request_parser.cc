#include "tessera/request_parser.h"

#include <simdjson.h>

#include <cmath>
#include <set>

#include "tessera/error.h"
#include "tessera/value.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

[[noreturn]] void Bad(const std::string& m) { throw BadRequest(m); }

const char* TypeName(element_type t) {
  switch (t) {
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE: return "a number";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "?";
}

// Parses body as one JSON document; the parser must outlive the returned element.
element ParseBody(simdjson::dom::parser& parser, std::string_view body, simdjson::padded_string& copy) {
  copy = simdjson::padded_string(body);
  auto result = parser.parse(copy);
  if (result.error()) {
    if (body.empty()) Bad("request body is empty; send a JSON object");
    Bad(std::string("malformed JSON: ") + simdjson::error_message(result.error()));
  }
  return result.value();
}

object ExpectObject(element e, const std::string& field) {
  if (e.type() != element_type::OBJECT) Bad(field + " must be an object, got " + TypeName(e.type()));
  return e.get_object().value();
}

simdjson::dom::array ExpectArray(element e, const std::string& field) {
  if (e.type() != element_type::ARRAY) Bad(field + " must be an array, got " + TypeName(e.type()));
  return e.get_array().value();
}

std::string ExpectString(element e, const std::string& field) {
  if (e.type() != element_type::STRING) Bad(field + " must be a string, got " + TypeName(e.type()));
  return std::string(e.get_string().value());
}

double ExpectNumber(element e, const std::string& field) {
  switch (e.type()) {
    case element_type::INT64: return double(e.get_int64().value());
    case element_type::UINT64: return double(e.get_uint64().value());
    case element_type::DOUBLE: return e.get_double().value();
    default: Bad(field + " must be a number, got " + TypeName(e.type()));
  }
}

bool ExpectBool(element e, const std::string& field) {
  if (e.type() != element_type::BOOL) Bad(field + " must be true or false, got " + TypeName(e.type()));
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
  for (element item : ExpectArray(e, field)) out.push_back(ExpectString(item, field + "[" + std::to_string(i++) + "]"));
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
      default: floats->resize(offset); Bad(field + "[" + std::to_string(i) + "] must be a number, got " + TypeName(x.type()));
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

void ReadValue(AttrEncoder& enc, std::string_view key, element v, const std::string& field) {
  if (v.type() == element_type::STRING) {
    if (v.get_string().value() != "Null") Bad(field + ": the only bare-string Value is \"Null\"; wrap strings as {\"Str\": ...}");
    enc.AddNull(key);
    return;
  }
  if (v.type() != element_type::OBJECT || object(v.get_object()).size() != 1)
    Bad(field + " must be a Value: one of {\"Str\"|\"Int\"|\"Bool\"|\"List\"|\"Float\"|\"DateTime\": ...} or \"Null\"");
  object wrapper = v.get_object();
  auto [tag, x] = *wrapper.begin();
  std::string where = field + "." + std::string(tag);
  auto whole = [&]() -> int64_t {
    if (x.type() == element_type::INT64) return x.get_int64().value();
    if (x.type() == element_type::UINT64) Bad(where + " is outside the signed 64-bit range");
    Bad(where + " must be an integer, got " + (x.type() == element_type::DOUBLE ? std::string("a fraction or exponent form") : TypeName(x.type())));
  };
  if (tag == "Str") enc.AddStr(key, ExpectString(x, where));
  else if (tag == "Int") enc.AddInt(key, whole());
  else if (tag == "DateTime") enc.AddDateTime(key, whole());
  else if (tag == "Bool") enc.AddBool(key, ExpectBool(x, where));
  else if (tag == "Float") enc.AddFloat(key, ExpectNumber(x, where));
  else if (tag == "List") {
    std::vector<std::string_view> items;
    size_t i = 0;
    for (element item : ExpectArray(x, where)) {
      if (item.type() != element_type::STRING) Bad(where + "[" + std::to_string(i) + "] must be a string");
      items.push_back(item.get_string().value());
      ++i;
    }
    enc.AddList(key, items);
  } else {
    Bad(field + ": unknown Value variant '" + std::string(tag) + "'; use Str, Int, Bool, List, Float, DateTime or \"Null\"");
  }
}

// Reserved keys are the store's own; callers cannot forge them.
bool IsReserved(std::string_view key) { return key.substr(0, 4) == "svc."; }

}  // namespace

UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(parser, body, copy), "request body");
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
          rec.id = ExpectString(v, where + ".id");
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

DeleteOp ParseDelete(std::string_view body, const std::string& collection) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(parser, body, copy), "request body");
  DeleteOp op;
  op.collection = collection;
  bool seen = false;
  for (auto [key, value] : root) {
    if (key == "ids") {
      op.ids = ExpectStrings(value, "ids");
      seen = true;
    } else if (key == "filter") {
      Bad("delete by filter is not available in this version; send ids");
    } else {
      UnknownField(key, " in the delete body", "ids, filter");
    }
  }
  if (!seen) Bad("the delete body needs ids: {\"ids\": [\"a\", \"b\"]}");
  return op;
}

SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(parser, body, copy), "request body");
  SearchParams p;
  bool has_query = false;
  std::vector<float> floats;
  for (auto [key, value] : root) {
    if (key == "query") {
      if (dim == 0) Bad("query: this store has dimension 0 (keyword-only); vector search is not possible");
      ReadVector(value, "query", dim, metric, &floats);
      has_query = true;
    } else if (key == "scope") {
      p.scope = ExpectStrings(value, "scope");
    } else if (key == "top_k") {
      p.top_k = ExpectCount(value, "top_k", kMaxRankDepth);
    } else if (key == "offset") {
      p.offset = ExpectCount(value, "offset", kMaxRankDepth);
    } else if (key == "min_score") {
      if (value.type() != element_type::NULL_VALUE) p.min_score = ExpectNumber(value, "min_score");
    } else if (key == "exact") {
      p.exact = ExpectBool(value, "exact");
    } else if (key == "include_attributes") {
      p.include_attributes = ExpectStrings(value, "include_attributes");
    } else if (key == "exclude_attributes") {
      p.exclude_attributes = ExpectStrings(value, "exclude_attributes");
    } else if (key == "names") {
      p.names = ExpectStrings(value, "names");
    } else if (key == "name_weights") {
      for (auto [name, w] : ExpectObject(value, "name_weights")) {
        double weight = ExpectNumber(w, "name_weights." + std::string(name));
        p.name_weights[std::string(name)] = float(weight);
      }
    } else if (key == "pool") {
      std::string pool = ExpectString(value, "pool");
      if (pool == "Max") p.pool = Pool::kMax;
      else if (pool == "Sum") p.pool = Pool::kSum;
      else Bad("pool must be \"Max\" or \"Sum\", got \"" + pool + "\"");
    } else if (key == "plan") {
      if (ExpectBool(value, "plan")) Bad("plan is not available in this version; omit it or send false");
    } else if (key == "filter" || key == "rank_by" || key == "limit_per" || key == "diversity" || key == "expand" ||
               key == "rerank") {
      Bad(std::string(key) + " is not available in this version of the store");
    } else {
      UnknownField(key, " in the search body",
                   "query, scope, top_k, offset, min_score, exact, include_attributes, exclude_attributes, names, "
                   "name_weights, pool, plan");
    }
  }
  if (!has_query) Bad(dim == 0 ? "query: this store has dimension 0 (keyword-only); vector search is not possible"
                               : "query is required: an array of " + std::to_string(dim) + " numbers");
  if (p.include_attributes && p.exclude_attributes)
    Bad("include_attributes and exclude_attributes cannot both be sent; pick one");
  if (uint64_t(p.offset) + p.top_k > kMaxRankDepth)
    Bad("offset + top_k must not exceed 10000 (got " + std::to_string(uint64_t(p.offset) + p.top_k) + ")");
  for (const auto& [name, w] : p.name_weights)
    if (!std::isfinite(w)) Bad("name_weights." + name + " must be a finite number");
  p.query = std::move(floats);
  return p;
}

std::map<std::string, std::string> ParseMeta(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(parser, body, copy), "metadata");
  std::map<std::string, std::string> out;
  for (auto [k, v] : root) out[std::string(k)] = ExpectString(v, "metadata." + std::string(k));
  return out;
}

std::vector<std::string> ParseVectorNames(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(parser, body, copy), "request body");
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

std::string ParseAliasTarget(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy;
  object root = ExpectObject(ParseBody(parser, body, copy), "request body");
  std::string target;
  for (auto [key, value] : root) {
    if (key != "target") UnknownField(key, " in the alias body", "target");
    target = ExpectString(value, "target");
  }
  if (target.empty()) Bad("the alias body needs a target collection: {\"target\": \"docs_v2\"}");
  return target;
}

}  // namespace tessera
