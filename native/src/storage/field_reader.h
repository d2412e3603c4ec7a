// One named attribute read row by row, across segments: from the segment's column when it has one
// with arrays, else from the row's blob. Rows come segment after segment, so the name is looked up
// once per run of rows of one segment.
#pragma once
#include <string>
#include <string_view>

#include "storage/segment.h"
#include "util/value.h"

namespace tessera {

class FieldReader {
 public:
  explicit FieldReader(std::string name) : name_(std::move(name)) {}

  // The row's value of the name; false when the row lacks it.
  bool Find(const Segment& segment, uint32_t row, ValueView* v) {
    if (&segment != segment_) Bind(segment);
    if (column_ != nullptr) return column_->Get(row, v);
    return read_blob_ && FindAttr(segment.row_attrs(row), name_, v);
  }

 private:
  void Bind(const Segment& segment) {
    segment_ = &segment;
    const SegmentColumns* columns = segment.columns();
    const AttrColumn* c = columns ? columns->Find(name_) : nullptr;
    column_ = c && !c->in_blob() ? c : nullptr;
    read_blob_ = columns == nullptr || c != nullptr;  // a segment with columns but none of the name: no row holds it
  }

  std::string name_;
  const Segment* segment_ = nullptr;
  const AttrColumn* column_ = nullptr;
  bool read_blob_ = true;
};

}  // namespace tessera
