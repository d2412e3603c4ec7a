// Appends JSON text to a byte string. Objects and arrays open and close through the writer, which
// places every comma and colon itself, so no caller spells JSON punctuation by hand. The core
// writes hit and record arrays itself so that 64-bit integers and float spellings reach the caller
// exactly; the output is compact (no spaces), which lib/exact_json.ts relies on.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace tessera {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  // Points later writes at another string, keeping the open scopes (a reply written in pieces).
  void Retarget(std::string* out) { out_ = out; }

  // Values: an array element, or the value of the member whose Key was just written.
  void String(std::string_view s);
  void Int(int64_t v);
  void UInt(uint64_t v);
  void Bool(bool v);
  void Null();
  // Shortest text that reads back to the same double; whole numbers keep a ".0" so a Float
  // stays a Float on a round trip.
  void Double(double v);
  // Shortest text that reads back to the same float (scores and stored vector components).
  void Float(float v);

  // An object member's key; its value is the next value written.
  void Key(std::string_view key);

  // A scalar or string value, written by the overload its type picks.
  template <typename T>
  void Value(const T& value) {
    if constexpr (std::is_null_pointer_v<T>)
      Null();
    else if constexpr (std::is_same_v<T, bool>)
      Bool(value);
    else if constexpr (std::is_same_v<T, float>)
      Float(value);
    else if constexpr (std::is_floating_point_v<T>)
      Double(value);
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
      Int(value);
    else if constexpr (std::is_integral_v<T>)
      UInt(value);
    else
      String(value);
  }
  // An object member: the key, then the value.
  template <typename T>
  void Member(std::string_view key, const T& value) {
    Key(key);
    Value(value);
  }

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }

  // Closes the object or array it opened when it goes out of scope.
  class [[nodiscard]] Scope {
   public:
    Scope(JsonWriter* w, char close) : w_(w), close_(close) {}
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { w_->Close(close_); }

   private:
    JsonWriter* w_;
    char close_;
  };
  Scope Object() {
    Open('{');
    return Scope(this, '}');
  }
  Scope Array() {
    Open('[');
    return Scope(this, ']');
  }

  // ["a","b"] from any range of strings.
  template <typename Strings>
  void StringArray(const Strings& items) {
    Scope array = Array();
    for (const auto& item : items) String(item);
  }
  // {"k":"v",...} from a map of strings.
  template <typename Map>
  void StringMap(const Map& map) {
    Scope object = Object();
    for (const auto& [k, v] : map) {
      Key(k);
      String(v);
    }
  }

 private:
  static constexpr uint32_t kMaxDepth = 64;

  // Writes the comma a value needs: none after a key or as the first element of its scope.
  void BeforeValue() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ == 0) return;
    uint64_t bit = uint64_t(1) << (depth_ - 1);
    if (nonempty_ & bit) out_->push_back(',');
    nonempty_ |= bit;
  }
  void Open(char c);
  void Close(char c);
  void Escaped(std::string_view s);

  std::string* out_;
  uint32_t depth_ = 0;
  uint64_t nonempty_ = 0;  // bit d-1: the scope at depth d holds an element already
  bool after_key_ = false;
};

// The JSON text fn writes, fn(JsonWriter&) closing every scope it opens.
template <typename Fn>
std::string JsonText(Fn&& fn) {
  std::string out;
  JsonWriter w(&out);
  fn(w);
  return out;
}

}  // namespace tessera
