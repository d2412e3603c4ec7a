// Highlight fragments: slices of a stored text around its matching words, sized in characters
// (never cut mid-codepoint), with the matching words' byte spans relative to each slice.
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/analyzer.h"
#include "query/text_params.h"

namespace tessera {

struct Fragment {
  std::string_view text;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // [start, end) bytes into text
};

// matches: the byte spans of matching words in text, ascending. Fragments are chosen greedily by
// how many whole matches they hold (ties: earlier first) and never overlap.
std::vector<Fragment> MakeFragments(std::string_view text, const std::vector<WordSpan>& matches, const HighlightParams& params);

}  // namespace tessera
