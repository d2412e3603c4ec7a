// A query's filter read against one segment's rows: each key the filter names resolved once to
// the segment's column, so a row's test reads those columns alone, and a range of rows can be
// narrowed column by column before any row of it is scored. Rows of a segment without columns
// (a memory segment, or a sealed one whose column file is unusable) are read from their blobs.
#pragma once
#include <cstdint>
#include <vector>

#include "filter/filter.h"
#include "storage/segment.h"
#include "util/row_bits.h"

namespace tessera {

class SegmentFilter {
 public:
  SegmentFilter(const Filter& filter, const Segment& segment);

  bool empty() const { return filter_.empty(); }
  bool Matches(uint32_t row) const {
    if (filter_.empty()) return true;
    if (!columnar_) return filter_.Matches(segment_.row_attrs(row));
    return filter_.Matches(RowAttrs{needs_blob_ ? segment_.row_attrs(row) : std::string_view(), columns_.data(), row});
  }
  // Clears from rows those that cannot match (Filter::Narrow); kNone without columns.
  Narrowed Narrow(RowBits& rows) const { return columnar_ ? filter_.Narrow(columns_.data(), rows) : Narrowed::kNone; }

 private:
  const Filter& filter_;
  const Segment& segment_;
  bool columnar_ = false;
  bool needs_blob_ = false;                 // some key has a column without arrays
  std::vector<const AttrColumn*> columns_;  // by key slot
};

}  // namespace tessera
