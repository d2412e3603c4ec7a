#include "util/json_reader.h"

namespace tessera {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

JsonValue ReadJsonValue(element v, const FieldName& where) {
  JsonValue out;
  if (v.type() == element_type::STRING) {
    if (v.get_string().value() != "Null")
      throw BadRequest(where + ": the only bare-string Value is \"Null\"; wrap strings as {\"Str\": ...}");
    return out;
  }
  if (v.type() != element_type::OBJECT || object(v.get_object()).size() != 1)
    throw BadRequest(where + " must be a Value: one of {\"Str\"|\"Int\"|\"Bool\"|\"List\"|\"Float\"|\"DateTime\": ...} or \"Null\"");
  object wrapper = v.get_object();
  // Not a structured binding: clang before 16 cannot capture one in the lambda below.
  simdjson::dom::key_value_pair entry = *wrapper.begin();
  std::string_view tag = entry.key;
  element x = entry.value;
  FieldName at(where, tag);
  auto whole = [&]() -> int64_t {
    if (x.type() == element_type::INT64) return x.get_int64().value();
    if (x.type() == element_type::UINT64) throw BadRequest(at + " is outside the signed 64-bit range");
    throw BadRequest(at + " must be an integer, got " +
                     (x.type() == element_type::DOUBLE ? std::string("a fraction or exponent form") : JsonTypeName(x.type())));
  };
  if (tag == "Str") {
    if (x.type() != element_type::STRING) throw BadRequest(at + " must be a string, got " + JsonTypeName(x.type()));
    out.tag = ValueTag::kStr;
    out.s = x.get_string().value();
  } else if (tag == "Int") {
    out.tag = ValueTag::kInt;
    out.i = whole();
  } else if (tag == "DateTime") {
    out.tag = ValueTag::kDateTime;
    out.i = whole();
  } else if (tag == "Bool") {
    if (x.type() != element_type::BOOL) throw BadRequest(at + " must be true or false, got " + JsonTypeName(x.type()));
    out.tag = ValueTag::kBool;
    out.i = x.get_bool().value();
  } else if (tag == "Float") {
    out.tag = ValueTag::kFloat;
    switch (x.type()) {
      case element_type::INT64: out.f = double(x.get_int64().value()); break;
      case element_type::UINT64: out.f = double(x.get_uint64().value()); break;
      case element_type::DOUBLE: out.f = x.get_double().value(); break;
      default: throw BadRequest(at + " must be a number, got " + JsonTypeName(x.type()));
    }
  } else if (tag == "List") {
    if (x.type() != element_type::ARRAY) throw BadRequest(at + " must be an array of strings, got " + JsonTypeName(x.type()));
    out.tag = ValueTag::kList;
    size_t i = 0;
    for (element item : x.get_array()) {
      if (item.type() != element_type::STRING)
        throw BadRequest(at + "[" + std::to_string(i) + "] must be a string, got " + JsonTypeName(item.type()));
      out.list.push_back(item.get_string().value());
      ++i;
    }
  } else {
    throw BadRequest(where + ": unknown Value variant '" + std::string(tag) + "'; use Str, Int, Bool, List, Float, DateTime or \"Null\"");
  }
  return out;
}

}  // namespace tessera
