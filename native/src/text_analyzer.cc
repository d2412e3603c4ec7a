#include "tessera/text_analyzer.h"

#include <algorithm>
#include <array>


extern "C" {
#include "api.h"
#include "stem_UTF_8_english.h"
}

namespace tessera {
namespace {

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(char(cp));
  } else if (cp < 0x800) {
    out->push_back(char(0xC0 | (cp >> 6)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(char(0xE0 | (cp >> 12)));
    out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(char(0xF0 | (cp >> 18)));
    out->push_back(char(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(char(0x80 | (cp & 0x3F)));
  }
}

// Simple lowercase mappings of the Latin, Greek and Cyrillic blocks.
uint32_t ToLower(uint32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
  if (cp >= 0x100 && cp <= 0x17F) {
    if (cp == 0x130) return 'i';
    if (cp == 0x178) return 0xFF;
    bool odd_upper = (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
    if (odd_upper) return cp % 2 == 1 ? cp + 1 : cp;
    if (cp == 0x131 || cp == 0x138 || cp == 0x149 || cp == 0x17F) return cp;
    return cp % 2 == 0 ? cp + 1 : cp;
  }
  if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) return cp + 32;
  if (cp == 0x386) return 0x3AC;
  if (cp >= 0x388 && cp <= 0x38A) return cp + 37;
  if (cp == 0x38C) return 0x3CC;
  if (cp == 0x38E || cp == 0x38F) return cp + 63;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  return cp;
}

// ASCII for the lowercase Latin-1 and Latin Extended-A letters with diacritics ('\0' = none);
// digits stand for the multi-letter foldings listed in kFoldLong.
constexpr char kFoldLatin1[] = "aaaaaa3ceeeeiiiidnooooo\0ouuuuy45aaaaaa3ceeeeiiiidnooooo\0ouuuuy4y";  // U+00C0..U+00FF
constexpr char kFoldLatinA[] =
    "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii11jjkkkllllllllllnnnnnnnnnoooooo22rrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs";  // U+0100..U+017F
constexpr const char* kFoldLong[] = {"", "ij", "oe", "ae", "th", "ss"};

const char* FoldLatin(uint32_t cp) {
  static thread_local char one[2] = {0, 0};
  char c = 0;
  if (cp >= 0xC0 && cp <= 0xFF) c = kFoldLatin1[cp - 0xC0];
  else if (cp >= 0x100 && cp <= 0x17F) c = kFoldLatinA[cp - 0x100];
  if (c == 0) return nullptr;
  if (c >= '1' && c <= '5') return kFoldLong[c - '0'];
  one[0] = c;
  return one;
}

// Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
constexpr std::array<std::string_view, 33> kStopwords = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
    "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with"};

}  // namespace

std::vector<WordSpan> SplitWords(std::string_view text) {
  std::vector<WordSpan> words;
  TokenIterator it(text);
  std::string_view word;
  while (it.Next(&word)) {
    uint32_t begin = uint32_t(word.data() - text.data());
    words.push_back({begin, begin + uint32_t(word.size())});
  }
  return words;
}

size_t CountChars(std::string_view text) {
  size_t chars = 0;
  for (size_t pos = 0; pos < text.size(); ++chars) NextCodePoint(text, &pos);
  return chars;
}

Analyzer::Analyzer(const FtsField& field)
    : ascii_folding_(field.ascii_folding), max_token_len_(field.max_token_len), stemmer_(english_UTF_8_create_env()) {
  if (stemmer_ == nullptr) throw std::bad_alloc();
}

Analyzer::~Analyzer() { english_UTF_8_close_env(stemmer_); }

bool Analyzer::IsStopword(std::string_view folded) {
  return std::find(kStopwords.begin(), kStopwords.end(), folded) != kStopwords.end();
}

std::string Analyzer::Fold(std::string_view word) const {
  std::string out;
  out.reserve(word.size());
  for (size_t pos = 0; pos < word.size();) {
    uint32_t cp = ToLower(NextCodePoint(word, &pos));
    const char* folded = ascii_folding_ ? FoldLatin(cp) : nullptr;
    if (folded) out += folded;
    else AppendUtf8(&out, cp);
  }
  return out;
}

std::string Analyzer::Stem(std::string_view folded) {
  SN_set_current(stemmer_, int(folded.size()), reinterpret_cast<const unsigned char*>(folded.data()));
  english_UTF_8_stem(stemmer_);
  return std::string(reinterpret_cast<const char*>(stemmer_->p), size_t(stemmer_->l));
}

const AnalyzedWord& Analyzer::Lookup(std::string_view raw) {
  auto it = words_.find(raw);
  if (it != words_.end()) return it->second;
  AnalyzedWord word{false, Fold(raw), {}};
  word.indexed = !(max_token_len_ && CountChars(raw) > max_token_len_) && !IsStopword(word.surface);
  if (word.indexed) word.term = Stem(word.surface);
  return words_.emplace(std::string(raw), std::move(word)).first->second;
}

std::vector<AnalyzedToken> Analyzer::Analyze(std::string_view text) {
  std::vector<AnalyzedToken> tokens;
  ForEachToken(text, [&](const AnalyzedWord& w, uint32_t position, WordSpan span) {
    tokens.push_back({w.surface, w.term, position, span.begin, span.end});
  });
  return tokens;
}

}  // namespace tessera
