// The English analyzer of full-text fields, applied identically when documents are indexed and
// when queries are parsed: Unicode word runs, lowercasing, optional Latin ASCII folding, a length
// cap, Lucene's English stopwords and the Snowball English (Porter2) stemmer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tessera/ops.h"

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

class Analyzer {
 public:
  explicit Analyzer(const FtsField& field);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // The indexed tokens of text, in order; stopwords and over-long words are skipped but keep
  // their positions.
  std::vector<AnalyzedToken> Analyze(std::string_view text);
  // One word lowercased, and folded when the field folds.
  std::string Fold(std::string_view word) const;
  // The stem of a folded word.
  const std::string& Stem(const std::string& folded);
  static bool IsStopword(std::string_view folded);

 private:
  bool ascii_folding_;
  uint32_t max_token_len_;
  SN_env* stemmer_;
  std::unordered_map<std::string, std::string> stems_;  // memo: word frequencies are Zipfian
};

}  // namespace tessera
