#include "analysis/fuzzy.h"

#include <algorithm>

#include "analysis/text_match.h"

namespace tessera {

FuzzyMatcher::FuzzyMatcher(std::string_view query, int max_edits) : max_edits_(max_edits) {
  for (size_t pos = 0; pos < query.size();) query_.push_back(AsciiLower(NextCodePoint(query, &pos)));
}

// Row j holds D(j, i) for query prefix i and text prefix j, stored only for the band
// i = j - k + d, d in [0, 2k]. Cells over budget saturate at k + 1, which all compare alike.
int FuzzyMatcher::Distance(std::string_view text, bool any_prefix) const {
  const int k = max_edits_;
  const int m = int(query_.size());
  const int width = 2 * k + 1;
  const int over = k + 1;
  int rows[2][2 * kMaxFuzzyEdits + 1];
  int* prev = rows[0];
  int* cur = rows[1];
  for (int d = 0; d < width; ++d) {
    int i = d - k;
    prev[d] = (i >= 0 && i <= m) ? i : over;
  }
  int j = 0;
  // D(j, m) sits at band offset m - j + k; with any_prefix the best over every j is kept.
  auto full = [&](const int* row) {
    int d = m - j + k;
    return d >= 0 && d < width ? row[d] : over;
  };
  int best_prefix = full(prev);
  for (size_t pos = 0; pos < text.size();) {
    uint32_t c = AsciiLower(NextCodePoint(text, &pos));
    ++j;
    int best = over;
    for (int d = 0; d < width; ++d) {
      int i = j - k + d;
      int v;
      if (i < 0 || i > m) {
        v = over;
      } else if (i == 0) {
        v = j;
      } else {
        v = prev[d] + (query_[i - 1] != c);                   // match or substitute
        if (d + 1 < width) v = std::min(v, prev[d + 1] + 1);  // text character deleted
        if (d > 0) v = std::min(v, cur[d - 1] + 1);           // query character inserted
        v = std::min(v, over);
      }
      cur[d] = v;
      best = std::min(best, v);
    }
    if (best > k) return any_prefix ? best_prefix : over;
    std::swap(prev, cur);
    best_prefix = std::min(best_prefix, full(prev));
  }
  return any_prefix ? best_prefix : full(prev);
}

}  // namespace tessera
