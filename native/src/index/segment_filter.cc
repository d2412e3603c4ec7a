#include "index/segment_filter.h"

namespace tessera {

SegmentFilter::SegmentFilter(const Filter& filter, const Segment& segment) : filter_(filter), segment_(segment) {
  const SegmentColumns* columns = segment.columns();
  if (columns == nullptr || filter.empty()) return;
  columnar_ = true;
  for (const std::string& key : filter.keys()) {
    const AttrColumn* c = columns->Find(key);
    needs_blob_ |= c != nullptr && c->in_blob();
    columns_.push_back(c);
  }
}

}  // namespace tessera
