// The one attachment point of a segment: every structure derived from its rows, with one lifetime
// rule. The filter index (sealed segments of a collection that declares one), the full-text
// postings (the rows a snapshot sees, under the collection's schema), the id index (sealed
// segments), the exact vector scan, and once built (sealed segments, when the store runs with
// them) the quantized first pass and the approximate vector index. A sealed segment's text,
// filter and id parts are viewed in its saved files or built in memory (catalog/sealed_indexes.h). Immutable: the writer attaches a new set
// when one part changes, so a snapshot always holds a consistent one and never sees a part change under it.
#pragma once
#include <cstddef>
#include <memory>

#include "index/filter_index.h"
#include "index/id_index.h"
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
  const IdIndexPtr& ids() const { return ids_; }                   // null: not sealed (or not derived yet)
  const VectorIndex& vectors() const { return *vectors_; }
  const VectorIndexPtr& ann() const { return ann_; }                // null: not built (or ANN is off)
  const VectorIndexPtr& first_pass() const { return first_pass_; }  // the quantized scan; null: none

  SegmentIndexesPtr WithFilter(SegmentFilterIndexPtr filter) const;
  SegmentIndexesPtr WithText(SegmentTextPtr text) const;
  SegmentIndexesPtr WithIds(IdIndexPtr ids) const;
  SegmentIndexesPtr WithVectorIndexes(VectorIndexPtr first_pass, VectorIndexPtr ann) const;

  size_t text_bytes() const { return text_ ? text_->bytes() : 0; }
  // Of its text, filter and id parts, how many are views of saved files and how many were built
  // in memory by this process.
  struct Origins {
    uint32_t mapped = 0, built = 0;
  };
  Origins origins() const;

 private:
  SegmentFilterIndexPtr filter_;
  SegmentTextPtr text_;
  IdIndexPtr ids_;
  VectorIndexPtr vectors_;
  VectorIndexPtr first_pass_;
  VectorIndexPtr ann_;
};

}  // namespace tessera
