// A sealed segment's attributes column by column (seg-N.cols), beside the per-row blobs of
// seg-N.rows, so a read of one attribute touches that attribute's bytes alone. The file is derived
// from the rows file and bound to it by the rows file's CRC: written when a segment is sealed,
// mmap'd and checked whole at open (magic, format version, header and body CRC, every array in
// bounds), and rebuilt from the blobs by a writer that finds it missing or damaged.
//
// Layout (little-endian, arrays of words aligned to their width): a 64-byte header; a directory
// entry per attribute name in the order names first appear in rows; the names; then per name its
// arrays (see AttrColumn): tags, slots, offsets, bytes, codes, dict. Names held by fewer than 1/16
// of the rows get no arrays (a directory entry only), so a segment of many rare names stays small;
// readers take those from each row's blob.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/attr_column.h"
#include "util/file_util.h"

namespace tessera {

class Segment;

class SegmentColumns {
 public:
  // The file's bytes for rows [0, segment.appended()) of a sealed segment.
  static std::string Encode(const Segment& segment);
  // Null when path is missing, damaged, or written for other rows than segment's.
  static std::shared_ptr<const SegmentColumns> Open(const std::string& path, const Segment& segment);

  // The column of name; null when no row holds it.
  const AttrColumn* Find(std::string_view name) const;
  const std::vector<AttrColumn>& columns() const { return columns_; }
  // Whether every row's blob lists its names in column order, so a row's attributes written
  // column by column come out in its blob's order.
  bool ordered() const { return ordered_; }
  size_t bytes() const { return block_.size(); }

 private:
  SegmentColumns() = default;
  bool Bind(uint32_t rows);

  Region block_;
  std::vector<AttrColumn> columns_;
  std::unordered_map<std::string_view, uint32_t> by_name_;
  bool ordered_ = false;
};

using SegmentColumnsPtr = std::shared_ptr<const SegmentColumns>;

// A sealed segment's columns: its column file in dir when valid; otherwise, when may_write, built
// from the segment's rows, written (atomically, fsynced) and opened; otherwise null, and readers
// read the blobs. The seal path and compaction's merged segments open theirs through it.
SegmentColumnsPtr OpenSegmentColumns(const std::string& dir, const Segment& segment, bool may_write);

}  // namespace tessera
