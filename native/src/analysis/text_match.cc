#include "analysis/text_match.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tessera {
namespace {

bool FoldedAt(const char* p, std::string_view folded) {
  for (size_t i = 0; i < folded.size(); ++i) {
    if (AsciiLower(p[i]) != folded[i]) return false;
  }
  return true;
}

}  // namespace

bool IsTokenCodePoint(uint32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // general punctuation .. misc symbols and arrows
  if (cp >= 0x2E00 && cp <= 0x2E7F) return false;  // supplemental punctuation
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK symbols and punctuation
  if (cp >= 0xD800 && cp <= 0xF8FF) return false;  // surrogates, private use
  if (cp >= 0xFE00 && cp <= 0xFE0F) return false;  // variation selectors
  if (cp >= 0xFE30 && cp <= 0xFE4F) return false;  // CJK compatibility forms
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // fullwidth ASCII punctuation
  if (cp >= 0xFF1A && cp <= 0xFF20) return false;
  if (cp >= 0xFF3B && cp <= 0xFF40) return false;
  if (cp >= 0xFF5B && cp <= 0xFF65) return false;
  if (cp >= 0xFFF0 && cp <= 0xFFFF) return false;    // specials, U+FFFD included
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji, flags and pictographs
  if (cp >= 0xE0000) return false;                   // tags, supplementary private use
  return true;
}

bool TokenEquals(std::string_view raw, std::string_view folded) { return raw.size() == folded.size() && FoldedAt(raw.data(), folded); }

size_t FindFolded(std::string_view text, std::string_view folded, size_t from) {
  const size_t n = folded.size();
  if (n == 0) return from <= text.size() ? from : std::string_view::npos;
  if (text.size() < n || from > text.size() - n) return std::string_view::npos;
  const size_t last = text.size() - n;  // the last position a match can start at
  const char* t = text.data();
  size_t i = from;
#if defined(__SSE2__)
  // Sixteen positions at a time: those whose first and last bytes match (a letter OR 0x20 is its
  // lowercase) are compared whole.
  auto lower_letter = [](char c) { return c >= 'a' && c <= 'z'; };
  const __m128i first = _mm_set1_epi8(folded[0]), last_byte = _mm_set1_epi8(folded[n - 1]);
  const __m128i fold_first = _mm_set1_epi8(lower_letter(folded[0]) ? 0x20 : 0);
  const __m128i fold_last = _mm_set1_epi8(lower_letter(folded[n - 1]) ? 0x20 : 0);
  for (; i + 16 <= last + 1; i += 16) {
    __m128i a = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i)), fold_first);
    __m128i b = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + i + n - 1)), fold_last);
    for (unsigned mask = unsigned(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last_byte)))); mask != 0;
         mask &= mask - 1) {
      size_t at = i + size_t(__builtin_ctz(mask));
      if (FoldedAt(t + at, folded)) return at;
    }
  }
#endif
  for (; i <= last; ++i)
    if (FoldedAt(t + i, folded)) return i;
  return std::string_view::npos;
}

std::vector<std::string> FoldedTokens(std::string_view text) {
  std::vector<std::string> out;
  TokenIterator it(text);
  std::string_view token;
  while (it.Next(&token)) {
    std::string& folded = out.emplace_back(token);
    for (char& c : folded) c = AsciiLower(c);
  }
  return out;
}

}  // namespace tessera
