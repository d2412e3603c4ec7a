// Reading request JSON (simdjson DOM) shared by the body parsers and the filter compiler: type
// names for error messages and the spec's tagged Value, so both accept exactly the same Values.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/error.h"
#include "util/field_name.h"
#include "util/value.h"

namespace tessera {

inline const char* JsonTypeName(simdjson::dom::element_type t) {
  using simdjson::dom::element_type;
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

inline std::string JsonString(simdjson::dom::element e, const FieldName& where) {
  if (e.type() != simdjson::dom::element_type::STRING) throw BadRequest(where + " must be a string, got " + JsonTypeName(e.type()));
  return std::string(e.get_string().value());
}

// A Value as sent: views point into the parsed document.
struct JsonValue {
  ValueTag tag = ValueTag::kNull;
  int64_t i = 0;  // Int, DateTime, Bool
  double f = 0;   // Float
  std::string_view s;
  std::vector<std::string_view> list;
};

// One of {"Str"|"Int"|"Bool"|"List"|"Float"|"DateTime": ...} or "Null"; Error(400) naming where.
JsonValue ReadJsonValue(simdjson::dom::element v, const FieldName& where);

}  // namespace tessera
