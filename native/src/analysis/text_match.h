// How the filter's text predicates read a string: UTF-8 code points, ASCII-only case folding, and
// tokens as maximal alphanumeric runs. The filter indexes must tokenize exactly like this so that
// an index changes speed only, never results.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? char(c + ('a' - 'A')) : c; }
inline uint32_t AsciiLower(uint32_t cp) { return (cp >= 'A' && cp <= 'Z') ? cp + ('a' - 'A') : cp; }

// Decodes the code point at s[*pos] and advances *pos past it. Inputs are validated UTF-8; a
// truncated sequence still advances, yielding its lead byte, so a scan can never overrun.
inline uint32_t NextCodePoint(std::string_view s, size_t* pos) {
  uint8_t b = uint8_t(s[*pos]);
  size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  if (*pos + n > s.size()) n = 1;
  uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (uint8_t(s[*pos + i]) & 0x3F);
  *pos += n;
  return cp;
}

// Letters and digits, approximated without Unicode tables: ASCII letters and digits, and every
// code point from U+00C0 up except the punctuation, symbol, space, private-use and emoji blocks
// (U+00D7, U+00F7, U+2000-U+2BFF, U+2E00-U+2E7F, U+3000-U+303F, U+D800-U+F8FF, U+FE00-U+FE0F,
// U+FE30-U+FE4F, fullwidth ASCII punctuation in U+FF00-U+FF65, U+FFF0-U+FFFF, U+1F000-U+1FAFF,
// U+E0000 up). Combining marks count as word characters, so decomposed accents never split a word.
bool IsTokenCodePoint(uint32_t cp);

// ASCII letters and digits: the token characters of the common case, by table.
inline constexpr std::array<bool, 128> kAsciiTokenChar = [] {
  std::array<bool, 128> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  return t;
}();

// Yields the tokens of a string as views of its bytes (not yet case folded). Inline, with a
// table for ASCII, because filters without an index run it over every row.
class TokenIterator {
 public:
  explicit TokenIterator(std::string_view text) : text_(text) {}
  bool Next(std::string_view* token) {
    const size_t n = text_.size();
    size_t next = pos_;
    while (pos_ < n && !TokenCharAt(pos_, &next)) pos_ = next;
    if (pos_ == n) return false;
    const size_t start = pos_;
    pos_ = next;
    while (pos_ < n && TokenCharAt(pos_, &next)) pos_ = next;
    *token = text_.substr(start, pos_ - start);
    return true;
  }

 private:
  // Whether the character at byte i is a token character; *next is set past it.
  bool TokenCharAt(size_t i, size_t* next) const {
    uint8_t b = uint8_t(text_[i]);
    if (b < 0x80) {
      *next = i + 1;
      return kAsciiTokenChar[b];
    }
    *next = i;
    return IsTokenCodePoint(NextCodePoint(text_, next));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Whether a raw token equals an already ASCII-folded one.
bool TokenEquals(std::string_view raw, std::string_view folded);

// The first position at or after `from` where text holds the bytes of an ASCII-folded needle as
// TokenEquals compares them (a lowercase ASCII letter matches either case, any other byte only
// itself); npos when none. Text holding a token equal to needle holds it, so a filter scans a
// column's bytes with it before tokenizing the rows it finds.
size_t FindFolded(std::string_view text, std::string_view folded, size_t from);

// The tokens of text, ASCII-folded, in order (duplicates kept).
std::vector<std::string> FoldedTokens(std::string_view text);

}  // namespace tessera
