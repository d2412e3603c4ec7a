// Filter indexes of one sealed segment: per declared field, a token index (serves the three token
// predicates) and a trigram index (serves Fuzzy and Regex). They narrow which rows a filter must
// be evaluated on and never change a result: candidates are always verified by the filter itself.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "filter/filter.h"
#include "index/filter_index_field.h"

namespace tessera {

class Segment;

class SegmentFilterIndex {
 public:
  // Indexes rows [0, segment.appended()) of a sealed segment for the declared fields.
  static std::shared_ptr<const SegmentFilterIndex> Build(const Segment& segment, const std::vector<FilterIndexField>& fields);
  virtual ~SegmentFilterIndex() = default;

  // Rows that may match the filter, ascending: a superset of the rows the filter accepts, derived
  // from the filter's top-level conjuncts that an index serves. nullopt when no conjunct is served
  // (the caller scans every row).
  virtual std::optional<std::vector<uint32_t>> Narrow(const Filter& filter) const = 0;

  // Bytes of memory the index holds.
  virtual size_t bytes() const = 0;
};

using SegmentFilterIndexPtr = std::shared_ptr<const SegmentFilterIndex>;

}  // namespace tessera
