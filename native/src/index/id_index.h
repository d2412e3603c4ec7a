// The rows of a sealed segment by id: an open-addressing table, a power of two of slots at most
// half full, of row numbers placed by a fixed hash of the id (the ids themselves stay in the
// segment). /search/similar finds its source record through it rather than scanning ids. Saved
// beside the segment (seg-N.ids) and viewed in place when opened.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "storage/segment.h"
#include "util/column.h"

namespace tessera {

class IdIndex;
using IdIndexPtr = std::shared_ptr<const IdIndex>;

class IdIndex {
 public:
  // Reads every row's id, then lets go of the records' pages it read (Segment::ReleaseRecordPages).
  static IdIndexPtr Build(const Segment& segment);
  // The index saved at path for segment's rows, or null when none there matches (index/derived_file.h).
  static IdIndexPtr Open(const std::string& path, const Segment& segment);
  // Whether path already holds an index of segment's rows (judged by its header).
  static bool Saved(const std::string& path, const Segment& segment);
  void Save(const std::string& path, const Segment& segment) const;

  // Calls fn(row) for every row of segment whose id is id, deleted ones included (a superseded row
  // and the row that replaced it may share a segment).
  template <typename Fn>
  void ForEachRow(const Segment& segment, std::string_view id, Fn&& fn) const {
    const size_t mask = slots_.size() - 1;
    for (size_t s = Slot(id, mask);; s = (s + 1) & mask) {
      uint32_t entry = slots_[s];
      if (entry == 0) return;
      if (segment.row_id(entry - 1) == id) fn(entry - 1);
    }
  }

  size_t bytes() const { return slots_.bytes(); }
  bool mapped() const { return slots_.mapped(); }

 private:
  static size_t Slot(std::string_view id, size_t mask);

  Column<uint32_t> slots_;  // row + 1; 0: free
};

}  // namespace tessera
