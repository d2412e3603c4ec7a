// The trigram index of one field: rows by trigram (three consecutive code points of a Str or List
// element, case-folded and packed 21 bits each into a key), and each row's text lengths. Serves
// Fuzzy (by the q-gram lemma and the lengths) and Regex (by RE2's prefilter atoms).
//
// Folding: ASCII letters to lower case, and U+017F LONG S and U+212A KELVIN SIGN to s and k, the
// only non-ASCII code points that RE2 lowercases to ASCII, so that an atom's ASCII trigrams are
// found whatever the text's case. It is coarser than the Fuzzy predicate's folding, which only
// widens Fuzzy's candidates.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "filter/filter.h"
#include "index/filter_index_postings.h"

namespace tessera {

class TrigramIndex {
 public:
  class Builder {
   public:
    void Add(std::string_view text, uint32_t row);  // rows ascending
    TrigramIndex Finish(uint32_t segment_rows);

   private:
    PostingIndex::Builder postings_;
    std::vector<uint16_t> min_length_, max_length_;
  };

  // Rows that may hold a text within max_edits of query: by trigrams when the query is long enough
  // for its budget, and by length, so always served.
  std::vector<uint32_t> Fuzzy(std::string_view query, int max_edits) const;
  // Rows that may satisfy the regex's atoms; nullopt when they assert nothing checkable.
  std::optional<std::vector<uint32_t>> Regex(const RegexAtoms& atoms, uint32_t segment_rows) const;
  size_t bytes() const;
  bool mapped() const { return postings_.mapped(); }
  // Whether it holds the lengths of exactly rows rows (a check of an opened file).
  bool Covers(uint32_t rows) const { return min_length_.size() == rows && max_length_.size() == rows; }

  TrigramIndex() = default;  // empty, for a BlockReader to fill
  template <typename A, typename Self>
  static void Layout(A& a, Self& t) {
    a(t.postings_, t.min_length_, t.max_length_);
  }

 private:
  TrigramIndex(PostingIndex postings, std::vector<uint16_t> min_length, std::vector<uint16_t> max_length)
      : postings_(std::move(postings)), min_length_(std::move(min_length)), max_length_(std::move(max_length)) {}
  std::optional<std::vector<uint32_t>> Atom(std::string_view atom) const;
  bool MayHaveLength(uint32_t row, int64_t lo, int64_t hi) const;

  static constexpr uint16_t kLongText = UINT16_MAX;
  PostingIndex postings_;
  // Per row, the fewest and most code points of its texts (Fuzzy matches whole strings), saturated
  // at kLongText; a row without text has min > max.
  Column<uint16_t> min_length_, max_length_;
};

}  // namespace tessera
