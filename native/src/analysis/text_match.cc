#include "analysis/text_match.h"

namespace tessera {

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

bool TokenEquals(std::string_view raw, std::string_view folded) {
  if (raw.size() != folded.size()) return false;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (AsciiLower(raw[i]) != folded[i]) return false;
  }
  return true;
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
