#include "query/parse/bad_number.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace tessera {
namespace {

// One open container: an array counts its elements, an object remembers the key being read.
struct Level {
  bool array;
  size_t index = 0;
  std::string key;
};

std::string PathOf(const std::vector<Level>& stack) {
  std::string path;
  for (const Level& l : stack) {
    if (l.array) {
      path += '[';
      path += std::to_string(l.index);
      path += ']';
    } else {
      if (!path.empty()) path += ".";
      path += l.key;
    }
  }
  return path.empty() ? "the body" : path;
}

bool IsNumberChar(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// What is wrong with a number token the parser refused, or nullopt when it is usable: an integer
// in int64 or uint64, or a finite double.
std::optional<BadNumber::Kind> Problem(const std::string& token) {
  bool integer = token.find_first_of(".eE") == std::string::npos;
  errno = 0;
  char* end = nullptr;
  if (integer && token[0] == '-')
    (void)std::strtoll(token.c_str(), &end, 10);
  else if (integer)
    (void)std::strtoull(token.c_str(), &end, 10);
  bool whole = integer && end == token.c_str() + token.size();
  if (whole) return errno == ERANGE ? std::optional(BadNumber::Kind::kIntegerTooBig) : std::nullopt;
  double v = std::strtod(token.c_str(), &end);
  if (end == token.c_str() + token.size() && std::isfinite(v)) return std::nullopt;
  return BadNumber::Kind::kFloatOutOfRange;
}

}  // namespace

std::optional<BadNumber> FindBadNumber(std::string_view text) {
  std::vector<Level> stack;
  size_t i = 0, n = text.size();
  auto bad = [&](BadNumber::Kind kind, size_t from, size_t to) {
    return BadNumber{kind, PathOf(stack), std::string(text.substr(from, std::min<size_t>(to - from, 40)))};
  };
  while (i < n) {
    char c = text[i];
    if (c == '"') {
      size_t start = ++i;
      while (i < n && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (i >= n) return std::nullopt;
      // A string directly inside an object before its colon is a key.
      size_t j = i + 1;
      while (j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
      if (!stack.empty() && !stack.back().array && j < n && text[j] == ':') stack.back().key = std::string(text.substr(start, i - start));
      ++i;
    } else if (c == '{' || c == '[') {
      stack.push_back(Level{c == '[', 0, {}});
      ++i;
    } else if (c == '}' || c == ']') {
      if (stack.empty()) return std::nullopt;
      stack.pop_back();
      ++i;
    } else if (c == ',') {
      if (!stack.empty() && stack.back().array) ++stack.back().index;
      ++i;
    } else if (c == 'N' || c == 'I' || (c == '-' && i + 1 < n && text[i + 1] == 'I')) {
      size_t start = i;
      if (c == '-') ++i;
      while (i < n && std::isalpha(static_cast<unsigned char>(text[i])) != 0) ++i;
      std::string_view word = text.substr(start, i - start);
      if (word != "NaN" && word != "Infinity" && word != "-Infinity") return std::nullopt;  // some other mistake
      return bad(BadNumber::Kind::kNotANumber, start, i);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t start = i;
      while (i < n && IsNumberChar(text[i])) ++i;
      if (std::optional<BadNumber::Kind> kind = Problem(std::string(text.substr(start, i - start)))) return bad(*kind, start, i);
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

}  // namespace tessera
