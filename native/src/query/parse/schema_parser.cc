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

// A field declaration body, {"fields": [entry, ...]}: an entry is a name, or an object whose
// members read_member takes (including "field"). check(field, where) runs once per entry; names
// may not repeat. route and example name the body in errors.
template <typename Field, typename ReadMember, typename Check>
std::vector<Field> ParseFieldDeclarations(std::string_view body, const char* route, const char* example, ReadMember&& read_member,
                                          Check&& check) {
  RequestBody parsed(body);
  std::vector<Field> fields;
  bool seen = false;
  for (auto [key, value] : parsed.Object()) {
    if (key != "fields") UnknownField(key, std::string(" in the ") + route + " body", "fields");
    if (seen) Bad("fields is given twice; send one list");
    seen = true;
    size_t i = 0;
    for (element entry : ExpectArray(value, "fields")) {
      std::string where = "fields[" + std::to_string(i++) + "]";
      Field f;
      if (entry.type() == element_type::STRING) {
        f.field = JsonString(entry, where);
      } else {
        for (auto [k, v] : ExpectObject(entry, where)) read_member(f, k, v, where);
      }
      if (f.field.empty()) Bad(where + " needs a field name: \"title\" or {\"field\": \"title\"}");
      check(f, where);
      for (const Field& other : fields)
        if (other.field == f.field) Bad(where + " declares '" + f.field + "' twice");
      fields.push_back(f);
    }
  }
  if (!seen) Bad(std::string("the ") + route + " body needs fields: " + example);
  return fields;
}

}  // namespace

std::vector<FtsField> ParseFtsSchema(std::string_view body) {
  auto member = [](FtsField& f, std::string_view k, element v, const std::string& where) {
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
      if (v.type() == element_type::NULL_VALUE) return;
      f.max_token_len = ExpectCount(v, fk, UINT32_MAX);
      if (f.max_token_len < 1) Bad(fk + " must be at least 1 (or omitted for no limit)");
    } else {
      UnknownField(k, " in " + where, "field, k1, b, language, ascii_folding, max_token_len");
    }
  };
  return ParseFieldDeclarations<FtsField>(
      body, "fts-schema", "{\"fields\": [\"title\", {\"field\": \"body\", \"k1\": 1.2, \"b\": 0.75}]} ([] drops the schema)", member,
      [](const FtsField&, const std::string&) {});
}

std::map<std::string, std::string> ParseMeta(std::string_view body) {
  RequestBody parsed(body);
  std::map<std::string, std::string> out;
  for (auto [k, v] : parsed.Object("metadata")) out[std::string(k)] = JsonString(v, "metadata." + std::string(k));
  return out;
}

std::vector<std::string> ParseVectorNames(std::string_view body) {
  RequestBody parsed(body);
  std::vector<std::string> names;
  bool seen = false;
  for (auto [key, value] : parsed.Object()) {
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
  auto member = [](FilterIndexField& f, std::string_view k, element v, const std::string& where) {
    if (k == "field")
      f.field = JsonString(v, where + ".field");
    else if (k == "tokens")
      f.tokens = ExpectBool(v, where + ".tokens");
    else if (k == "trigrams")
      f.trigrams = ExpectBool(v, where + ".trigrams");
    else
      UnknownField(k, " in " + where, "field, tokens, trigrams");
  };
  auto check = [](const FilterIndexField& f, const std::string& where) {
    if (!f.tokens && !f.trigrams)
      Bad(where + " ('" + f.field + "') turns off both tokens and trigrams; keep at least one, or leave the field out");
  };
  return ParseFieldDeclarations<FilterIndexField>(
      body, "filter-index", "{\"fields\": [\"title\", {\"field\": \"tags\", \"trigrams\": false}]} ([] drops the declaration)", member,
      check);
}

std::string ParseAliasTarget(std::string_view body) {
  RequestBody parsed(body);
  std::string target;
  for (auto [key, value] : parsed.Object()) {
    if (key != "target") UnknownField(key, " in the alias body", "target");
    target = JsonString(value, "target");
  }
  if (target.empty()) Bad("the alias body needs a target collection: {\"target\": \"docs_v2\"}");
  return target;
}

}  // namespace tessera
