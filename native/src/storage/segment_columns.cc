#include "storage/segment_columns.h"

#include <algorithm>
#include <cstring>

#include "storage/file_names.h"
#include "storage/segment.h"
#include "tessera/error.h"
#include "util/crc32c.h"

namespace tessera {
namespace {

constexpr uint64_t kMagic = 0x31304c4f43535354;  // "TSSCOL01"
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kOrdered = 1;  // header flag: every row lists its names in column order
// A name gets arrays when at least 1/kSparse of the rows hold it: arrays cost every row, so a
// rare name costs at most kSparse x 17 bytes per row that holds it.
constexpr uint32_t kSparse = 16;

struct FileHeader {
  uint64_t magic;
  uint32_t format_version;
  uint32_t rows;
  uint32_t rows_crc;  // the rows file's own CRC: the rows these columns were derived from
  uint32_t columns;
  uint32_t flags;
  uint32_t body_crc;  // of every byte after the header
  uint64_t block_bytes;
  uint32_t header_crc;  // of the header bytes before it
  uint32_t pad[5];
};
static_assert(sizeof(FileHeader) == 64, "the file layout");

// File offsets of one name's arrays; 0 where the name has none.
struct DirEntry {
  uint64_t name_offset;
  uint32_t name_len;
  uint32_t dict_size;
  uint64_t tags, slots, offsets, bytes, bytes_len, codes, dict;
};
static_assert(sizeof(DirEntry) == 72, "the file layout");

size_t Align8(size_t x) { return (x + 7) & ~size_t(7); }

uint32_t HeaderCrc(const FileHeader& h) { return Crc32c(&h, offsetof(FileHeader, header_crc)); }

bool IsFixed(ValueTag t) { return t == ValueTag::kInt || t == ValueTag::kDateTime || t == ValueTag::kBool || t == ValueTag::kFloat; }
bool IsVar(ValueTag t) { return t == ValueTag::kStr || t == ValueTag::kList; }

// The names of a segment's rows, numbered as they first appear. Rows usually list the same names
// in the same order, so the name at position k of a row is first compared with the one at k in
// the row before, and hashed only when it differs.
class NameTable {
 public:
  uint32_t Lookup(std::string_view name, size_t position) {
    if (position < guess_.size() && names_[guess_[position]] == name) return guess_[position];
    auto [it, added] = index_.emplace(name, uint32_t(names_.size()));
    if (added) names_.push_back(name);
    if (position >= guess_.size()) guess_.resize(position + 1);
    guess_[position] = it->second;
    return it->second;
  }
  const std::vector<std::string_view>& names() const { return names_; }

 private:
  std::vector<std::string_view> names_;  // views into the segment's rows file
  std::unordered_map<std::string_view, uint32_t> index_;
  std::vector<uint32_t> guess_;
};

// What the first pass learns of one name.
struct NameStats {
  uint32_t present = 0;
  uint32_t last_row = 0;  // 1 + the last row counted: a name a blob repeats counts once, as FindAttr reads its first
  bool fixed = false;     // some row holds a value with a slot (Int, DateTime, Bool, Float, List)
  bool var = false;       // some row holds a Str or List
  uint64_t var_bytes = 0;
  // The distinct Str values with the first row of each, while they are few enough to code.
  std::unordered_map<std::string_view, uint32_t> strs;
  bool many_strs = false;
};

// A column's Str values in ascending order with their first rows; codes are 1 + the position.
std::vector<std::pair<std::string_view, uint32_t>> Dictionary(const NameStats& s) {
  std::vector<std::pair<std::string_view, uint32_t>> out(s.strs.begin(), s.strs.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Where the second pass writes one name's arrays.
struct ColumnSink {
  uint8_t* tags = nullptr;
  int64_t* slots = nullptr;
  uint64_t* offsets = nullptr;
  char* bytes = nullptr;
  uint64_t cursor = 0;  // bytes written
  uint32_t filled = 0;  // offsets[0, filled] are written
  uint8_t* codes = nullptr;
  std::unordered_map<std::string_view, uint8_t> code_of;
};

// Calls fn(row, position, key, value) for each entry of each row's blob, in order.
template <typename Fn>
void ForEachEntry(const Segment& segment, Fn&& fn) {
  for (uint32_t r = 0; r < segment.appended(); ++r) {
    AttrReader reader(segment.row_attrs(r));
    std::string_view key;
    ValueView v;
    for (size_t k = 0; reader.Next(&key, &v); ++k) fn(r, k, key, v);
  }
}

}  // namespace

std::string SegmentColumns::Encode(const Segment& segment) {
  const uint32_t rows = segment.appended();
  NameTable table;
  std::vector<NameStats> stats;
  bool ordered = true;
  uint32_t previous = 0;  // the column of the row's entry before
  ForEachEntry(segment, [&](uint32_t r, size_t k, std::string_view key, const ValueView& v) {
    uint32_t c = table.Lookup(key, k);
    if (c >= stats.size()) stats.resize(c + 1);
    ordered &= k == 0 || c > previous;
    previous = c;
    NameStats& s = stats[c];
    if (s.last_row == r + 1) return;
    s.last_row = r + 1;
    ++s.present;
    s.fixed |= IsFixed(v.tag) || v.tag == ValueTag::kList;
    s.var |= IsVar(v.tag);
    if (IsVar(v.tag)) s.var_bytes += v.s.size();
    if (v.tag != ValueTag::kStr || s.many_strs) return;
    s.strs.emplace(v.s, r);
    if (s.strs.size() > AttrColumn::kMaxCodes) {
      s.many_strs = true;
      s.strs = {};
    }
  });

  const std::vector<std::string_view>& names = table.names();
  size_t pos = sizeof(FileHeader) + names.size() * sizeof(DirEntry);
  std::vector<DirEntry> dir(names.size());
  for (size_t c = 0; c < names.size(); ++c) {
    dir[c].name_offset = pos;
    dir[c].name_len = uint32_t(names[c].size());
    pos += names[c].size();
  }
  std::vector<std::vector<std::pair<std::string_view, uint32_t>>> dicts(names.size());
  for (size_t c = 0; c < names.size(); ++c) {
    const NameStats& s = stats[c];
    if (uint64_t(s.present) * kSparse < rows) continue;
    DirEntry& e = dir[c];
    e.tags = pos = Align8(pos);
    pos += rows;
    if (s.fixed) {
      e.slots = pos = Align8(pos);
      pos += sizeof(int64_t) * size_t(rows);
    }
    if (s.var) {
      e.offsets = pos = Align8(pos);
      pos += sizeof(uint64_t) * (size_t(rows) + 1);
      e.bytes = pos;
      e.bytes_len = s.var_bytes;
      pos += s.var_bytes;
    }
    if (!s.strs.empty()) {
      dicts[c] = Dictionary(s);
      e.codes = pos;
      pos += rows;
      e.dict = pos = Align8(pos);
      e.dict_size = uint32_t(dicts[c].size());
      pos += sizeof(uint32_t) * dicts[c].size();
    }
  }

  std::string out(Align8(pos), '\0');
  char* base = out.data();
  std::vector<ColumnSink> sinks(names.size());
  for (size_t c = 0; c < names.size(); ++c) {
    const DirEntry& e = dir[c];
    std::memcpy(base + e.name_offset, names[c].data(), names[c].size());
    ColumnSink& s = sinks[c];
    if (e.tags) s.tags = reinterpret_cast<uint8_t*>(base + e.tags);
    if (e.slots) s.slots = reinterpret_cast<int64_t*>(base + e.slots);
    if (e.offsets) s.offsets = reinterpret_cast<uint64_t*>(base + e.offsets), s.bytes = base + e.bytes;
    if (e.codes) {
      s.codes = reinterpret_cast<uint8_t*>(base + e.codes);
      auto* first_rows = reinterpret_cast<uint32_t*>(base + e.dict);
      for (size_t k = 0; k < dicts[c].size(); ++k) {
        s.code_of.emplace(dicts[c][k].first, uint8_t(k + 1));
        first_rows[k] = dicts[c][k].second;
      }
    }
  }
  if (!dir.empty()) std::memcpy(base + sizeof(FileHeader), dir.data(), dir.size() * sizeof(DirEntry));  // no names: no directory

  ForEachEntry(segment, [&](uint32_t r, size_t k, std::string_view key, const ValueView& v) {
    ColumnSink& s = sinks[table.Lookup(key, k)];
    if (s.tags == nullptr || s.tags[r] != 0) return;
    s.tags[r] = uint8_t(v.tag);
    if (v.tag == ValueTag::kFloat)
      std::memcpy(&s.slots[r], &v.f, sizeof(double));
    else if (IsFixed(v.tag))
      s.slots[r] = v.i;
    else if (v.tag == ValueTag::kList)
      s.slots[r] = v.list_size;
    if (!IsVar(v.tag)) return;
    if (s.codes && v.tag == ValueTag::kStr) s.codes[r] = s.code_of.at(v.s);
    for (; s.filled < r; ++s.filled) s.offsets[s.filled + 1] = s.cursor;  // rows before r hold no bytes
    std::memcpy(s.bytes + s.cursor, v.s.data(), v.s.size());
    s.cursor += v.s.size();
    s.offsets[++s.filled] = s.cursor;
  });
  for (ColumnSink& s : sinks)
    for (; s.offsets && s.filled < rows; ++s.filled) s.offsets[s.filled + 1] = s.cursor;

  FileHeader h{};
  h.magic = kMagic;
  h.format_version = kFormatVersion;
  h.rows = rows;
  h.rows_crc = segment.rows_crc();
  h.columns = uint32_t(names.size());
  h.flags = ordered ? kOrdered : 0;
  h.block_bytes = out.size();
  h.body_crc = Crc32c(base + sizeof(FileHeader), out.size() - sizeof(FileHeader));
  h.header_crc = HeaderCrc(h);
  std::memcpy(base, &h, sizeof h);
  return out;
}

std::shared_ptr<const SegmentColumns> SegmentColumns::Open(const std::string& path, const Segment& segment) {
  if (!FileExists(path)) return nullptr;
  std::shared_ptr<SegmentColumns> c(new SegmentColumns());
  c->block_ = Region::MapFile(path);
  if (c->block_.size() < sizeof(FileHeader)) return nullptr;
  FileHeader h;
  std::memcpy(&h, c->block_.data(), sizeof h);
  if (h.magic != kMagic || h.format_version != kFormatVersion || h.header_crc != HeaderCrc(h)) return nullptr;
  if (h.block_bytes != c->block_.size() || h.rows != segment.appended() || h.rows_crc != segment.rows_crc()) return nullptr;
  const char* base = static_cast<const char*>(c->block_.data());
  if (Crc32c(base + sizeof(FileHeader), c->block_.size() - sizeof(FileHeader)) != h.body_crc) return nullptr;
  if (uint64_t(h.columns) * sizeof(DirEntry) > c->block_.size() - sizeof(FileHeader)) return nullptr;
  c->columns_.resize(h.columns);
  c->ordered_ = (h.flags & kOrdered) != 0;
  return c->Bind(h.rows) ? c : nullptr;
}

// Points the columns into the block, checking every array lies inside it and every row's tag and
// offsets are usable, so a file that passed its CRC yet is inconsistent is refused, never read.
bool SegmentColumns::Bind(uint32_t rows) {
  const char* base = static_cast<const char*>(block_.data());
  const uint64_t size = block_.size();
  auto fits = [&](uint64_t offset, uint64_t bytes) { return offset <= size && bytes <= size - offset; };
  auto aligned = [](uint64_t offset) { return offset % 8 == 0; };
  for (uint32_t c = 0; c < columns_.size(); ++c) {
    DirEntry e;
    std::memcpy(&e, base + sizeof(FileHeader) + c * sizeof(DirEntry), sizeof e);
    if (!fits(e.name_offset, e.name_len)) return false;
    AttrColumn& col = columns_[c];
    col.name = std::string_view(base + e.name_offset, e.name_len);
    col.index = c;
    if (!by_name_.emplace(col.name, c).second) return false;
    if (e.tags == 0) continue;
    if (!fits(e.tags, rows)) return false;
    col.tags = reinterpret_cast<const uint8_t*>(base + e.tags);
    if (e.slots) {
      if (!aligned(e.slots) || !fits(e.slots, sizeof(int64_t) * uint64_t(rows))) return false;
      col.slots = reinterpret_cast<const int64_t*>(base + e.slots);
    }
    if (e.offsets) {
      if (!aligned(e.offsets) || !fits(e.offsets, sizeof(uint64_t) * (uint64_t(rows) + 1)) || !fits(e.bytes, e.bytes_len)) return false;
      col.offsets = reinterpret_cast<const uint64_t*>(base + e.offsets);
      col.bytes = base + e.bytes;
      if (col.offsets[0] != 0 || col.offsets[rows] != e.bytes_len) return false;
      for (uint32_t r = 0; r < rows; ++r)
        if (col.offsets[r] > col.offsets[r + 1]) return false;
    }
    if (e.codes) {
      if (!col.offsets || e.dict_size == 0 || e.dict_size > AttrColumn::kMaxCodes || !fits(e.codes, rows) || e.dict % 4 != 0 ||
          !fits(e.dict, sizeof(uint32_t) * uint64_t(e.dict_size)))
        return false;
      col.codes = reinterpret_cast<const uint8_t*>(base + e.codes);
      col.dict = reinterpret_cast<const uint32_t*>(base + e.dict);
      col.dict_size = e.dict_size;
    }
    for (uint32_t r = 0; r < rows; ++r) {
      uint8_t tag = col.tags[r];
      if (tag > uint8_t(ValueTag::kNull)) return false;
      ValueTag t = ValueTag(tag);
      if ((IsFixed(t) || t == ValueTag::kList) && !col.slots) return false;
      if (IsVar(t) && !col.offsets) return false;
      if (col.codes && ((t == ValueTag::kStr) != (col.codes[r] != 0) || col.codes[r] > col.dict_size)) return false;
    }
    for (uint32_t k = 0; k < col.dict_size; ++k) {
      uint32_t first = col.dict[k];
      if (first >= rows || col.codes[first] != k + 1 || (k > 0 && !(col.Span(col.dict[k - 1]) < col.Span(first)))) return false;
    }
  }
  return true;
}

const AttrColumn* SegmentColumns::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &columns_[it->second];
}

SegmentColumnsPtr OpenSegmentColumns(const std::string& dir, const Segment& segment, bool may_write) {
  std::string path = SegmentColumnsPath(dir, segment.id());
  if (SegmentColumnsPtr columns = SegmentColumns::Open(path, segment)) return columns;
  if (!may_write) return nullptr;
  WriteFileAtomic(path, SegmentColumns::Encode(segment));
  SegmentColumnsPtr columns = SegmentColumns::Open(path, segment);
  if (!columns) throw Internal("column file " + path + " does not read back as written");
  return columns;
}

}  // namespace tessera
