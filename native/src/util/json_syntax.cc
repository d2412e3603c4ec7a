#include "tessera/json_syntax.h"

#include <cctype>
#include <cstdio>
#include <utility>
#include <vector>

namespace tessera {

namespace {

// A walk of the grammar with an explicit stack of open containers, so no nesting depth can
// exhaust the thread's stack. Written for clarity: it runs only on a body that already failed.
class SyntaxWalk {
 public:
  explicit SyntaxWalk(std::string_view text) : s_(text) {}

  std::optional<JsonSyntaxError> Run() {
    enum class Next { kValue, kKeyOrClose, kKey, kColon, kAfterValue };
    Next next = Next::kValue;
    for (;;) {
      SkipSpace();
      switch (next) {
        case Next::kValue:
          if (At('{')) {
            open_.push_back('{');
            ++i_;
            next = Next::kKeyOrClose;
          } else if (At('[')) {
            open_.push_back('[');
            ++i_;
            SkipSpace();
            next = Next::kValue;
            if (At(']')) {
              ++i_;
              Close();
              next = Next::kAfterValue;
            }
          } else if (!Scalar()) {
            return error_;
          } else {
            next = Next::kAfterValue;
          }
          break;
        case Next::kKeyOrClose:
          if (At('}')) {
            ++i_;
            Close();
            next = Next::kAfterValue;
            break;
          }
          [[fallthrough]];
        case Next::kKey:
          if (!At('"')) return Fail(next == Next::kKey ? "a string key" : "a string key or '}'");
          if (!String()) return error_;
          next = Next::kColon;
          break;
        case Next::kColon:
          if (!At(':')) return Fail("':' after the key");
          ++i_;
          next = Next::kValue;
          break;
        case Next::kAfterValue:
          if (open_.empty()) return i_ == s_.size() ? std::nullopt : Fail("the end of the body after the JSON value");
          if (At(',')) {
            ++i_;
            next = open_.back() == '{' ? Next::kKey : Next::kValue;
          } else if (At(open_.back() == '{' ? '}' : ']')) {
            ++i_;
            Close();
          } else {
            return Fail(open_.back() == '{' ? "',' or '}'" : "',' or ']'");
          }
          break;
      }
    }
  }

 private:
  bool At(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool Digit() const { return i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; }
  void Close() { open_.pop_back(); }

  void SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  std::optional<JsonSyntaxError> Fail(std::string expected) {
    size_t line = 1, line_start = 0;
    for (size_t k = 0; k < i_; ++k)
      if (s_[k] == '\n') line++, line_start = k + 1;
    error_ = JsonSyntaxError{i_, line, i_ - line_start + 1, std::move(expected), Found()};
    return error_;
  }

  std::string Found() const {
    if (i_ >= s_.size()) return "the end of the body";
    unsigned char c = static_cast<unsigned char>(s_[i_]);
    if (c >= 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
    char hex[16];
    std::snprintf(hex, sizeof hex, "byte 0x%02X", c);
    return hex;
  }

  // A string, number or literal; false (error_ set) when it is none.
  bool Scalar() {
    if (At('"')) return String();
    if (At('-') || Digit()) return Number();
    for (std::string_view word : {"true", "false", "null"}) {
      if (!At(word[0])) continue;
      for (char c : word) {
        if (!At(c)) return Fail(std::string(word)), false;
        ++i_;
      }
      return true;
    }
    Fail("a value (an object, array, string, number, true, false or null)");
    return false;
  }

  bool String() {
    ++i_;  // the opening quote
    for (;;) {
      if (i_ >= s_.size()) return Fail("'\"' closing the string"), false;
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') return ++i_, true;
      if (c < 0x20) return Fail("a control character escaped in the string (\\n, \\t, \\u00XX)"), false;
      if (c != '\\') {
        ++i_;
        continue;
      }
      ++i_;
      if (i_ < s_.size() && std::string_view("\"\\/bfnrt").find(s_[i_]) != std::string_view::npos) {
        ++i_;
        continue;
      }
      if (!At('u')) return Fail("an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"), false;
      ++i_;
      for (int k = 0; k < 4; ++k, ++i_)
        if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return Fail("four hex digits after \\u"), false;
    }
  }

  bool Number() {
    if (At('-')) ++i_;
    if (!Digit()) return Fail("a digit"), false;
    if (At('0')) {
      ++i_;
    } else {
      while (Digit()) ++i_;
    }
    if (At('.')) {
      ++i_;
      if (!Digit()) return Fail("a digit after the decimal point"), false;
      while (Digit()) ++i_;
    }
    if (At('e') || At('E')) {
      ++i_;
      if (At('+') || At('-')) ++i_;
      if (!Digit()) return Fail("a digit in the exponent"), false;
      while (Digit()) ++i_;
    }
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
  std::vector<char> open_;  // '{' or '[' of each container still open
  std::optional<JsonSyntaxError> error_;
};

}  // namespace

std::optional<JsonSyntaxError> FindJsonSyntaxError(std::string_view text) { return SyntaxWalk(text).Run(); }

std::string Describe(const JsonSyntaxError& e) {
  return "malformed JSON at byte " + std::to_string(e.offset) + " (line " + std::to_string(e.line) + ", column " +
         std::to_string(e.column) + "): expected " + e.expected + ", found " + e.found;
}

}  // namespace tessera
