// Appends JSON text to a byte string. The core writes hit and record arrays itself so that
// 64-bit integers and float spellings reach the caller exactly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void Raw(std::string_view s) { out_->append(s); }
  void Char(char c) { out_->push_back(c); }
  void String(std::string_view s);
  void Int(int64_t v);
  void UInt(uint64_t v);
  void Bool(bool v) { out_->append(v ? "true" : "false"); }
  // Shortest text that reads back to the same double; whole numbers keep a ".0" so a Float
  // stays a Float on a round trip.
  void Double(double v);
  // Shortest text that reads back to the same float (scores and stored vector components).
  void Float(float v);
  void Key(std::string_view k) {
    String(k);
    out_->push_back(':');
  }
  // ["a","b"] from any range of strings.
  template <typename Strings>
  void StringArray(const Strings& items) {
    out_->push_back('[');
    bool first = true;
    for (const auto& item : items) {
      if (!first) out_->push_back(',');
      first = false;
      String(item);
    }
    out_->push_back(']');
  }
  // {"k":"v",...} from a map of strings.
  template <typename Map>
  void StringMap(const Map& map) {
    out_->push_back('{');
    bool first = true;
    for (const auto& [k, v] : map) {
      if (!first) out_->push_back(',');
      first = false;
      Key(k);
      String(v);
    }
    out_->push_back('}');
  }

 private:
  std::string* out_;
};

}  // namespace tessera
