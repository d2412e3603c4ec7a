// The English analyzer of full-text fields, applied identically when documents are indexed and
// when queries are parsed: Unicode word runs, lowercasing, optional Latin ASCII folding, a length
// cap, Lucene's English stopwords and the Snowball English (Porter2) stemmer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/fts_field.h"
#include "analysis/text_match.h"

struct SN_env;

namespace tessera {

struct AnalyzedToken {
  std::string surface;  // the word lowercased (and folded), unstemmed
  std::string term;     // its stem: what the index stores
  uint32_t position;    // ordinal among all words of the text, stopwords included
  uint32_t begin, end;  // byte range of the word as the text spells it
};

// A word run of text: [begin, end) in bytes.
struct WordSpan {
  uint32_t begin, end;
};

// Maximal runs of letters and digits as the token predicates define them (text_match.h).
std::vector<WordSpan> SplitWords(std::string_view text);

// Code points in a UTF-8 string.
size_t CountChars(std::string_view text);

// One distinct spelling of a word, analyzed.
struct AnalyzedWord {
  bool indexed;         // false for stopwords and words over max_token_len
  std::string surface;  // lowercased (and folded), unstemmed
  std::string term;     // its stem
};

class Analyzer {
 public:
  explicit Analyzer(const FtsField& field);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // Calls fn(word, position, span) for each indexed word of text, in order; stopwords and
  // over-long words are skipped but keep their positions. word stays valid while this analyzer lives.
  template <typename Fn>
  void ForEachToken(std::string_view text, Fn&& fn) {
    TokenIterator words(text);
    std::string_view raw;
    for (uint32_t position = 0; words.Next(&raw); ++position) {
      const AnalyzedWord& word = Lookup(raw);
      uint32_t begin = uint32_t(raw.data() - text.data());
      if (word.indexed) fn(word, position, WordSpan{begin, begin + uint32_t(raw.size())});
    }
  }
  // The indexed tokens of text, in order.
  std::vector<AnalyzedToken> Analyze(std::string_view text);
  // One word lowercased, and folded when the field folds.
  std::string Fold(std::string_view word) const;
  // The stem of a folded word.
  std::string Stem(std::string_view folded);
  static bool IsStopword(std::string_view folded);

 private:
  // The analysis of one spelling, memoized: word frequencies are Zipfian, so most words of a
  // text cost one hash lookup.
  const AnalyzedWord& Lookup(std::string_view raw);

  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  bool ascii_folding_;
  uint32_t max_token_len_;
  SN_env* stemmer_;
  std::unordered_map<std::string, AnalyzedWord, Hash, std::equal_to<>> words_;
};

}  // namespace tessera
