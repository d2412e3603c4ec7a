// What every request-body parser shares: parsing the body with the thread's simdjson parser,
// typed reads that name the field and the fix in their Error(400), and vectors. Every
// parser in query/parse/ raises its errors before any row is read.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/options.h"
#include "util/field_name.h"

namespace tessera {

[[noreturn]] void Bad(const std::string& message);

simdjson::dom::object ExpectObject(simdjson::dom::element e, const FieldName& field);

// A body parsed as one JSON document by the calling thread's parser, whose buffers (and its copy
// of the body) are reused across requests: what it yields is valid while it lives and the thread
// parses no other body. Malformed JSON, invalid UTF-8, deep nesting and out-of-range numbers are
// Error(400); no memory for the parser's buffers is Error(507).
class RequestBody {
 public:
  explicit RequestBody(std::string_view body);
  // The text head + body + tail, copied: a part of a larger body, framed as a body of its own.
  RequestBody(std::string_view head, std::string_view body, std::string_view tail);
  simdjson::dom::element root() const { return root_; }
  // The root as an object; what names it in errors.
  simdjson::dom::object Object(const std::string& what = "request body") const { return ExpectObject(root_, what); }

 private:
  void Check(simdjson::simdjson_result<simdjson::dom::element> result, std::string_view body);
  simdjson::dom::element root_;
};
// The calling thread's parser capacity, in body bytes (tests check how it grows and shrinks).
size_t ThreadParserCapacity();

simdjson::dom::array ExpectArray(simdjson::dom::element e, const FieldName& field);
double ExpectNumber(simdjson::dom::element e, const FieldName& field);
double ExpectFinite(simdjson::dom::element e, const FieldName& field);
bool ExpectBool(simdjson::dom::element e, const FieldName& field);
// A whole number from 0 to max.
uint32_t ExpectCount(simdjson::dom::element e, const FieldName& field, uint32_t max);
// A JSON integer that fits a signed 64-bit value (no fraction, no exponent form).
int64_t ExpectInt64(simdjson::dom::element e, const FieldName& field);
std::vector<std::string> ExpectStrings(simdjson::dom::element e, const FieldName& field);

[[noreturn]] void UnknownField(std::string_view key, const std::string& where, const char* allowed);

// Appends a vector to floats, checking length, finiteness and (for Cosine) a usable norm, which it
// normalizes away so that score = dot product. Returns the vector's offset in floats.
size_t ReadVector(simdjson::dom::element e, const FieldName& field, uint32_t dim, Metric metric, std::vector<float>* floats);
// The same rules for a vector that arrived as floats (the library's binary query).
std::vector<float> CheckedVector(std::vector<float> v, const FieldName& field, uint32_t dim, Metric metric);

}  // namespace tessera
