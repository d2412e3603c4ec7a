#include "query/highlight.h"

#include <algorithm>

namespace tessera {

std::vector<Fragment> MakeFragments(std::string_view text, const std::vector<WordSpan>& matches, const HighlightParams& params) {
  if (matches.empty()) return {};
  // Byte offset of each character boundary, so windows are cut in characters.
  std::vector<uint32_t> bounds;
  for (uint32_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) bounds.push_back(i);
  bounds.push_back(uint32_t(text.size()));
  auto char_at = [&](uint32_t byte) { return uint32_t(std::lower_bound(bounds.begin(), bounds.end(), byte) - bounds.begin()); };
  const uint32_t total = uint32_t(bounds.size() - 1);
  const uint32_t width = params.fragment_chars;
  // Word and match starts and ends in characters; all four are ascending.
  std::vector<uint32_t> word_begin, word_end, match_begin, match_end;
  for (const WordSpan& w : SplitWords(text)) {
    word_begin.push_back(char_at(w.begin));
    word_end.push_back(char_at(w.end));
  }
  for (const WordSpan& m : matches) {
    match_begin.push_back(char_at(m.begin));
    match_end.push_back(char_at(m.end));
  }

  struct Window {
    uint32_t begin, end;            // characters
    size_t first_match, end_match;  // the matches wholly inside: [first_match, end_match)
    size_t count() const { return end_match - first_match; }
  };
  std::vector<Window> candidates;
  for (size_t i = 0; i < matches.size(); ++i) {
    uint32_t start = match_begin[i];
    // Begin at the first word starting at or after the lead-in point; end after the last whole
    // word that fits, so no word is cut and no separator dangles at either end.
    uint32_t b = start - std::min(start, width / 4);
    b = std::min(start, *std::lower_bound(word_begin.begin(), word_begin.end(), b));
    uint32_t limit = std::min(total, b + width);
    auto last_fit = std::upper_bound(word_end.begin(), word_end.end(), limit);
    uint32_t e = std::max(std::min(limit, std::max(match_end[i], b)), last_fit == word_end.begin() ? b : *(last_fit - 1));
    e = std::min(e, limit);
    size_t first = size_t(std::lower_bound(match_begin.begin(), match_begin.end(), b) - match_begin.begin());
    size_t end = size_t(std::upper_bound(match_end.begin(), match_end.end(), e) - match_end.begin());
    candidates.push_back({b, e, first, std::max(first, end)});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Window& a, const Window& b) { return a.count() > b.count(); });
  std::vector<Fragment> out;
  std::vector<std::pair<uint32_t, uint32_t>> taken;
  for (const Window& w : candidates) {
    if (out.size() >= params.max_fragments) break;
    // A window too narrow for any whole match still shows where the first one is, without spans.
    if (w.count() == 0 && !out.empty()) continue;
    bool overlaps = std::any_of(taken.begin(), taken.end(), [&](auto t) { return w.begin < t.second && t.first < w.end; });
    if (overlaps) continue;
    taken.push_back({w.begin, w.end});
    uint32_t byte_begin = bounds[w.begin], byte_end = bounds[w.end];
    Fragment f{text.substr(byte_begin, byte_end - byte_begin), {}};
    for (size_t m = w.first_match; m < w.end_match; ++m) f.spans.push_back({matches[m].begin - byte_begin, matches[m].end - byte_begin});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tessera
