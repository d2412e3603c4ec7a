#include "analysis/analyzer.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

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

#include "unicode_tables.inc"

// Simple lowercase mapping (Unicode's, generated into unicode_tables.inc).
uint32_t ToLower(uint32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
  if (cp > 0xFFFF) return cp;
  auto it = std::lower_bound(std::begin(kLowercase), std::end(kLowercase), cp, [](const auto& e, uint32_t c) { return e.first < c; });
  return it != std::end(kLowercase) && it->first == cp ? it->second : cp;
}

// The ASCII spelling of a Latin letter with diacritics (or a ligature), or null.
const char* FoldLatin(uint32_t cp) {
  if (cp < 0xC0 || cp > 0xFFFF) return nullptr;
  auto it = std::lower_bound(std::begin(kAsciiFold), std::end(kAsciiFold), cp, [](const auto& e, uint32_t c) { return e.first < c; });
  return it != std::end(kAsciiFold) && it->first == cp ? it->second : nullptr;
}

// Combining diacritical marks: folding drops them, so a decomposed "é" folds like a composed one.
bool IsCombiningMark(uint32_t cp) { return cp >= 0x300 && cp <= 0x36F; }

// Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
constexpr std::array<std::string_view, 33> kStopwords = {
    "a",  "an", "and", "are",  "as",   "at",  "be",    "but",  "by",    "for",   "if",   "in",   "into", "is",  "it",   "no",  "not",
    "of", "on", "or",  "such", "that", "the", "their", "then", "there", "these", "they", "this", "to",   "was", "will", "with"};

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

bool Analyzer::IsStopword(std::string_view folded) { return std::find(kStopwords.begin(), kStopwords.end(), folded) != kStopwords.end(); }

std::string Analyzer::Fold(std::string_view word) const {
  std::string out;
  out.reserve(word.size());
  for (size_t pos = 0; pos < word.size();) {
    uint32_t cp = ToLower(NextCodePoint(word, &pos));
    if (ascii_folding_ && IsCombiningMark(cp)) continue;
    const char* folded = ascii_folding_ ? FoldLatin(cp) : nullptr;
    if (folded)
      out += folded;
    else
      AppendUtf8(&out, cp);
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
