#include "index/segment_indexes.h"

#include "index/flat_index.h"

namespace tessera {

SegmentIndexesPtr SegmentIndexes::Flat() {
  static const SegmentIndexesPtr flat = [] {
    auto indexes = std::make_shared<SegmentIndexes>();
    indexes->vectors_ = FlatIndex::Shared();
    return indexes;
  }();
  return flat;
}

SegmentIndexesPtr SegmentIndexes::WithFilter(SegmentFilterIndexPtr filter) const {
  auto next = std::make_shared<SegmentIndexes>(*this);
  next->filter_ = std::move(filter);
  return next;
}

SegmentIndexesPtr SegmentIndexes::WithText(SegmentTextPtr text) const {
  auto next = std::make_shared<SegmentIndexes>(*this);
  next->text_ = std::move(text);
  return next;
}

SegmentIndexesPtr SegmentIndexes::WithIds(IdIndexPtr ids) const {
  auto next = std::make_shared<SegmentIndexes>(*this);
  next->ids_ = std::move(ids);
  return next;
}

SegmentIndexes::Origins SegmentIndexes::origins() const {
  Origins o;
  auto count = [&](const auto& part) {
    if (part) ++(part->mapped() ? o.mapped : o.built);
  };
  count(text_);
  count(filter_);
  count(ids_);
  return o;
}

SegmentIndexesPtr SegmentIndexes::WithVectorIndexes(VectorIndexPtr first_pass, VectorIndexPtr ann) const {
  auto next = std::make_shared<SegmentIndexes>(*this);
  next->first_pass_ = std::move(first_pass);
  next->ann_ = std::move(ann);
  return next;
}

}  // namespace tessera
