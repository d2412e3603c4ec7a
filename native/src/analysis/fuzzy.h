// The Fuzzy predicate: Levenshtein distance on code points (insert, delete, substitute cost 1, so a
// transposition costs 2), both sides ASCII-case-folded, decided within a budget of max_edits.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera {

constexpr int kMaxFuzzyEdits = 8;

class FuzzyMatcher {
 public:
  FuzzyMatcher(std::string_view query, int max_edits);  // max_edits in 0..kMaxFuzzyEdits

  // Only the diagonal band |i - j| <= max_edits can stay within budget, so each text character
  // costs O(max_edits), nothing is allocated, and the scan stops once every cell is over budget.
  bool Matches(std::string_view text) const { return Distance(text, false) <= max_edits_; }
  // The fewest edits turning the query into some prefix of text (max_edits + 1 when over budget).
  int PrefixDistance(std::string_view text) const { return Distance(text, true); }

 private:
  int Distance(std::string_view text, bool any_prefix) const;

  std::vector<uint32_t> query_;  // folded code points
  int max_edits_;
};

}  // namespace tessera
