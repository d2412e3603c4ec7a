#include "highlight.h"

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
  const std::vector<WordSpan> words = SplitWords(text);

  struct Window {
    uint32_t begin, end;  // characters
    std::vector<std::pair<uint32_t, uint32_t>> inside;  // match byte spans
  };
  std::vector<Window> candidates;
  for (const WordSpan& m : matches) {
    uint32_t start = char_at(m.begin), stop = char_at(m.end);
    // Begin at the first word starting at or after the lead-in point; end after the last whole
    // word that fits, so no word is cut and no separator dangles at either end.
    uint32_t b = start - std::min(start, width / 4);
    for (const WordSpan& w : words) {
      uint32_t wb = char_at(w.begin);
      if (wb >= b) {
        b = std::min(wb, start);
        break;
      }
    }
    uint32_t limit = std::min(total, b + width);
    uint32_t e = std::min(limit, std::max(stop, b));
    for (const WordSpan& w : words) {
      uint32_t we = char_at(w.end);
      if (we > limit) break;
      e = std::max(e, we);
    }
    Window win{b, e, {}};
    for (const WordSpan& x : matches) {
      uint32_t xb = char_at(x.begin), xe = char_at(x.end);
      if (xb >= b && xe <= e) win.inside.push_back({x.begin, x.end});
    }
    candidates.push_back(std::move(win));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Window& a, const Window& b) { return a.inside.size() > b.inside.size(); });
  std::vector<Fragment> out;
  std::vector<std::pair<uint32_t, uint32_t>> taken;
  for (const Window& w : candidates) {
    if (out.size() >= params.max_fragments) break;
    // A window too narrow for any whole match still shows where the first one is, without spans.
    if (w.inside.empty() && !out.empty()) continue;
    bool overlaps = std::any_of(taken.begin(), taken.end(), [&](auto t) { return w.begin < t.second && t.first < w.end; });
    if (overlaps) continue;
    taken.push_back({w.begin, w.end});
    uint32_t byte_begin = bounds[w.begin], byte_end = bounds[w.end];
    Fragment f{text.substr(byte_begin, byte_end - byte_begin), {}};
    for (auto [sb, se] : w.inside) f.spans.push_back({sb - byte_begin, se - byte_begin});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tessera
