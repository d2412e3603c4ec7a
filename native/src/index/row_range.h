// The rows of one segment a search visits: a contiguous range, or within it only the candidate
// rows a filter index narrowed the filter to.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/cancel.h"

namespace tessera {

struct RowRange {
  uint32_t begin = 0, end = 0;
  const std::vector<uint32_t>* narrowed = nullptr;  // ascending; null = every row of the range

  // Rows visited.
  size_t size() const {
    if (narrowed == nullptr) return end - begin;
    return std::lower_bound(narrowed->begin(), narrowed->end(), end) - std::lower_bound(narrowed->begin(), narrowed->end(), begin);
  }
  bool Contains(uint32_t row) const {
    return row >= begin && row < end && (narrowed == nullptr || std::binary_search(narrowed->begin(), narrowed->end(), row));
  }
};

// Calls fn(row) for each row of range, polling the cancel token as it goes.
template <typename Fn>
void ForEachRow(const RowRange& range, const CancelToken& cancel, Fn&& fn) {
  if (range.narrowed == nullptr) {
    for (uint32_t r = range.begin; r < range.end; ++r) {
      if ((r - range.begin) % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      fn(r);
    }
    return;
  }
  const std::vector<uint32_t>& rows = *range.narrowed;
  auto it = std::lower_bound(rows.begin(), rows.end(), range.begin);
  for (size_t n = 0; it != rows.end() && *it < range.end; ++it, ++n) {
    if (n % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
    fn(*it);
  }
}

}  // namespace tessera
