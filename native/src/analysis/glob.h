// Glob patterns for the Glob and IGlob predicates: `*` any run, `?` one character (code point),
// `[..]` a class with ranges and `!` or `^` negation, `\` escaping the next character. A pattern
// matches the whole string. Compiled once so matching allocates nothing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class GlobPattern {
 public:
  // Returns false with *error set for an unclosed `[` or a trailing `\`.
  static bool Parse(std::string_view pattern, bool ignore_ascii_case, GlobPattern* out, std::string* error);

  bool Matches(std::string_view text) const;

 private:
  enum class Kind : uint8_t { kLiteral, kAnyChar, kStar, kClass };
  struct Op {
    Kind kind;
    uint32_t index;  // kLiteral: offset into literals_; kClass: index into classes_
    uint32_t size;   // kLiteral: byte length
  };
  struct Class {
    bool negated = false;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // inclusive code point ranges
    bool Contains(uint32_t cp) const;
  };

  // Matches op at text[*pos], advancing *pos past what it consumed.
  bool MatchOne(const Op& op, std::string_view text, size_t* pos) const;
  // First offset >= from where the literal op matches, or npos.
  size_t FindLiteral(const Op& op, std::string_view text, size_t from) const;

  bool ignore_case_ = false;
  std::vector<Op> ops_;
  std::string literals_;  // ASCII-folded when ignore_case_
  std::vector<Class> classes_;
};

}  // namespace tessera
