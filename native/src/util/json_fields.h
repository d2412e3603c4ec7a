// Structs spelled as JSON objects, described once for both directions: Members(a, s) names a
// struct's members in order as key, value pairs (a("id", s.id, "rows", s.rows)), and
// JsonFieldWriter or JsonFieldReader walks them. Members may be strings, bools, numbers, string
// maps, vectors, or structs with Members of their own. A reader throws simdjson_error on a wrong
// shape or a missing member.
#pragma once
#include <simdjson.h>

#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "util/fields_of.h"
#include "util/json_writer.h"

namespace tessera {

class JsonFieldWriter {
 public:
  explicit JsonFieldWriter(JsonWriter& w) : w_(w) {}

  template <typename T, typename... Rest>
  void operator()(std::string_view key, const T& value, const Rest&... rest) {
    w_.Key(key);
    Write(value);
    if constexpr (sizeof...(rest) > 0) (*this)(rest...);
  }
  // Members a reader may find absent (ones later versions added).
  template <typename... Members>
  void Optional(const Members&... members) {
    (*this)(members...);
  }

 private:
  template <typename T>
  void Write(const T& value) {
    if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string>) {
      JsonWriter::Scope object = w_.Object();
      Members(*this, value);
    } else {
      w_.Value(value);
    }
  }
  void Write(const std::map<std::string, std::string>& map) { w_.StringMap(map); }
  template <typename T>
  void Write(const std::vector<T>& items) {
    JsonWriter::Scope array = w_.Array();
    for (const T& item : items) Write(item);
  }

  JsonWriter& w_;
};

class JsonFieldReader {
 public:
  explicit JsonFieldReader(simdjson::dom::object object) : object_(object) {}

  template <typename T, typename... Rest>
  void operator()(std::string_view key, T& value, Rest&... rest) {
    Read(object_[key].value(), value);
    if constexpr (sizeof...(rest) > 0) (*this)(rest...);
  }
  // Leaves a member's value as it is when the member is absent.
  template <typename T, typename... Rest>
  void Optional(std::string_view key, T& value, Rest&... rest) {
    simdjson::dom::element e;
    if (object_[key].get(e) == simdjson::SUCCESS) Read(e, value);
    if constexpr (sizeof...(rest) > 0) Optional(rest...);
  }

 private:
  template <typename T>
  static void Read(simdjson::dom::element e, T& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      value = std::string(e.get_string().value());
    } else if constexpr (std::is_same_v<T, bool>) {
      value = e.get_bool().value();
    } else if constexpr (std::is_floating_point_v<T>) {
      value = T(e.get_double().value());
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      value = T(e.get_int64().value());
    } else if constexpr (std::is_integral_v<T>) {
      value = T(e.get_uint64().value());
    } else {
      JsonFieldReader members(e.get_object().value());
      Members(members, value);
    }
  }
  // Range-for over a temporary result's value() would outlive it: the object or array is copied.
  static void Read(simdjson::dom::element e, std::map<std::string, std::string>& map) {
    simdjson::dom::object object = e.get_object().value();
    for (auto [k, v] : object) map[std::string(k)] = std::string(v.get_string().value());
  }
  template <typename T>
  static void Read(simdjson::dom::element e, std::vector<T>& items) {
    simdjson::dom::array array = e.get_array().value();
    for (simdjson::dom::element item : array) Read(item, items.emplace_back());
  }

  simdjson::dom::object object_;
};

}  // namespace tessera
