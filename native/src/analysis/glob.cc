#include "analysis/glob.h"

#include "analysis/text_match.h"

namespace tessera {

bool GlobPattern::Class::Contains(uint32_t cp) const {
  bool in = false;
  for (const auto& [lo, hi] : ranges) in |= (cp >= lo && cp <= hi);
  return in != negated;
}

bool GlobPattern::Parse(std::string_view pattern, bool ignore_ascii_case, GlobPattern* out, std::string* error) {
  *out = GlobPattern();
  out->ignore_case_ = ignore_ascii_case;
  auto literal = [&](std::string_view bytes) {
    if (out->ops_.empty() || out->ops_.back().kind != Kind::kLiteral)
      out->ops_.push_back({Kind::kLiteral, uint32_t(out->literals_.size()), 0});
    for (char c : bytes) out->literals_.push_back(ignore_ascii_case ? AsciiLower(c) : c);
    out->ops_.back().size += uint32_t(bytes.size());
  };
  size_t pos = 0;
  while (pos < pattern.size()) {
    size_t at = pos;
    uint32_t cp = NextCodePoint(pattern, &pos);
    if (cp == '*') {
      if (out->ops_.empty() || out->ops_.back().kind != Kind::kStar) out->ops_.push_back({Kind::kStar, 0, 0});
    } else if (cp == '?') {
      out->ops_.push_back({Kind::kAnyChar, 0, 0});
    } else if (cp == '\\') {
      if (pos == pattern.size()) {
        *error = "ends with a lone '\\'; escape it as '\\\\'";
        return false;
      }
      size_t from = pos;
      NextCodePoint(pattern, &pos);
      literal(pattern.substr(from, pos - from));
    } else if (cp == '[') {
      Class cls;
      if (pos < pattern.size() && (pattern[pos] == '!' || pattern[pos] == '^')) {
        cls.negated = true;
        ++pos;
      }
      bool closed = false;
      bool first = true;
      while (pos < pattern.size()) {
        uint32_t lo = NextCodePoint(pattern, &pos);
        if (lo == ']' && !first) {
          closed = true;
          break;
        }
        first = false;
        if (lo == '\\' && pos < pattern.size()) lo = NextCodePoint(pattern, &pos);
        uint32_t hi = lo;
        if (pos + 1 < pattern.size() && pattern[pos] == '-' && pattern[pos + 1] != ']') {
          ++pos;
          hi = NextCodePoint(pattern, &pos);
          if (hi == '\\' && pos < pattern.size()) hi = NextCodePoint(pattern, &pos);
        }
        cls.ranges.push_back({lo, hi});
      }
      if (!closed) {
        *error = "has an unclosed '[' at byte " + std::to_string(at) + "; escape a literal one as '\\['";
        return false;
      }
      out->ops_.push_back({Kind::kClass, uint32_t(out->classes_.size()), 0});
      out->classes_.push_back(std::move(cls));
    } else {
      literal(pattern.substr(at, pos - at));
    }
  }
  return true;
}

bool GlobPattern::MatchOne(const Op& op, std::string_view text, size_t* pos) const {
  switch (op.kind) {
    case Kind::kLiteral: {
      if (text.size() - *pos < op.size) return false;
      const char* lit = literals_.data() + op.index;
      const char* at = text.data() + *pos;
      for (uint32_t i = 0; i < op.size; ++i) {
        if ((ignore_case_ ? AsciiLower(at[i]) : at[i]) != lit[i]) return false;
      }
      *pos += op.size;
      return true;
    }
    case Kind::kAnyChar:
      if (*pos == text.size()) return false;
      NextCodePoint(text, pos);
      return true;
    case Kind::kClass: {
      if (*pos == text.size()) return false;
      uint32_t cp = NextCodePoint(text, pos);
      const Class& cls = classes_[op.index];
      if (!ignore_case_) return cls.Contains(cp);
      uint32_t lower = AsciiLower(cp);
      uint32_t upper = (lower >= 'a' && lower <= 'z') ? lower - ('a' - 'A') : lower;
      // A negated class must exclude both cases, a plain one may hold either.
      return cls.negated ? cls.Contains(lower) && cls.Contains(upper) : cls.Contains(lower) || cls.Contains(upper);
    }
    case Kind::kStar: break;
  }
  return false;
}

size_t GlobPattern::FindLiteral(const Op& op, std::string_view text, size_t from) const {
  std::string_view lit(literals_.data() + op.index, op.size);
  if (!ignore_case_) return text.find(lit, from);
  for (size_t at = from; at + lit.size() <= text.size(); ++at) {
    size_t i = 0;
    while (i < lit.size() && AsciiLower(text[at + i]) == lit[i]) ++i;
    if (i == lit.size()) return at;
  }
  return std::string_view::npos;
}

// Every op but `*` consumes a fixed number of characters, so on a mismatch it is enough to let
// the most recent `*` absorb one more character and retry (the classic linear-space wildcard scan).
bool GlobPattern::Matches(std::string_view text) const {
  size_t op = 0, pos = 0;
  size_t star_op = ops_.size(), star_pos = 0;
  for (;;) {
    if (op < ops_.size()) {
      if (ops_[op].kind == Kind::kStar) {
        if (op + 1 == ops_.size()) return true;
        star_op = op++;
        star_pos = pos;
        continue;
      }
      size_t next = pos;
      if (MatchOne(ops_[op], text, &next)) {
        ++op;
        pos = next;
        continue;
      }
    } else if (pos == text.size()) {
      return true;
    }
    if (star_op == ops_.size() || star_pos == text.size()) return false;
    NextCodePoint(text, &star_pos);
    // A literal after the `*` can only start where its bytes occur (UTF-8 keeps them aligned).
    if (ops_[star_op + 1].kind == Kind::kLiteral) {
      star_pos = FindLiteral(ops_[star_op + 1], text, star_pos);
      if (star_pos == std::string_view::npos) return false;
    }
    op = star_op + 1;
    pos = star_pos;
  }
}

}  // namespace tessera
