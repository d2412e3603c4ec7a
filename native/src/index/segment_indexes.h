// The one attachment point of a segment: every structure derived from its rows, with one lifetime
// rule. The filter index (sealed segments of a collection that declares one), the full-text
// postings (the rows a snapshot sees, under the collection's schema), the exact vector scan, and
// once built (sealed segments, when the store runs with them) the quantized first pass and the
// approximate vector index. Immutable: the writer attaches a new set
// when one part changes, so a snapshot always holds a consistent one and never sees a part change under it.
#pragma once
#include <cstddef>
#include <memory>

#include "index/filter_index.h"
#include "index/text_index.h"
#include "index/vector_index.h"

namespace tessera {

class SegmentIndexes;
using SegmentIndexesPtr = std::shared_ptr<const SegmentIndexes>;

class SegmentIndexes {
 public:
  // A segment nothing has been derived from yet: the flat scan alone.
  static SegmentIndexesPtr Flat();

  const SegmentFilterIndexPtr& filter() const { return filter_; }  // null: nothing declared, or not sealed
  const SegmentTextPtr& text() const { return text_; }             // null: no full-text schema
  const VectorIndex& vectors() const { return *vectors_; }
  const VectorIndexPtr& ann() const { return ann_; }                // null: not built (or ANN is off)
  const VectorIndexPtr& first_pass() const { return first_pass_; }  // the quantized scan; null: none

  SegmentIndexesPtr WithFilter(SegmentFilterIndexPtr filter) const;
  SegmentIndexesPtr WithText(SegmentTextPtr text) const;
  SegmentIndexesPtr WithVectorIndexes(VectorIndexPtr first_pass, VectorIndexPtr ann) const;

  size_t text_bytes() const { return text_ ? text_->bytes() : 0; }

 private:
  SegmentFilterIndexPtr filter_;
  SegmentTextPtr text_;
  VectorIndexPtr vectors_;
  VectorIndexPtr first_pass_;
  VectorIndexPtr ann_;
};

}  // namespace tessera
