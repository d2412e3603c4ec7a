// Filter indexes of one sealed segment: per declared field, a token index (serves the three token
// predicates) and a trigram index (serves Fuzzy and Regex). They narrow which rows a filter must
// be evaluated on and never change a result: candidates are always verified by the filter itself.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "filter/filter.h"
#include "index/filter_index_field.h"

namespace tessera {

class Segment;

class SegmentFilterIndex {
 public:
  // Indexes rows [0, segment.appended()) of a sealed segment for the declared fields.
  static std::shared_ptr<const SegmentFilterIndex> Build(const Segment& segment, const std::vector<FilterIndexField>& fields);
  // The index saved at path for segment's rows under fields, or null when none there matches
  // (index/derived_file.h).
  static std::shared_ptr<const SegmentFilterIndex> Open(const std::string& path, const Segment& segment,
                                                        const std::vector<FilterIndexField>& fields);
  // Whether path already holds an index of segment's rows under fields (judged by its header).
  static bool Saved(const std::string& path, const Segment& segment, const std::vector<FilterIndexField>& fields);
  virtual ~SegmentFilterIndex() = default;

  // Writes it durably at path; fields must be the ones it was built under.
  virtual void Save(const std::string& path, const Segment& segment, const std::vector<FilterIndexField>& fields) const = 0;
  // Whether its arrays are views of a saved file.
  virtual bool mapped() const = 0;

  // Rows that may match the filter, ascending: a superset of the rows the filter accepts, derived
  // from the filter's top-level conjuncts that an index serves. nullopt when no conjunct is served
  // (the caller scans every row).
  virtual std::optional<std::vector<uint32_t>> Narrow(const Filter& filter) const = 0;

  // Bytes of memory the index holds.
  virtual size_t bytes() const = 0;
};

using SegmentFilterIndexPtr = std::shared_ptr<const SegmentFilterIndex>;

}  // namespace tessera
