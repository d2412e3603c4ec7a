#include "query/parse/schema_parser.h"

#include <set>

#include "query/parse/body_reader.h"
#include "util/json_reader.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

constexpr double kMaxK1 = 1000;  // beyond it tf saturation is meaningless and scores lose precision

}  // namespace

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
