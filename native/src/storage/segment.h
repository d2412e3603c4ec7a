// A segment is a run of rows of one collection: ids, optional vectors (one contiguous f32 slot
// per row), named-vector columns, encoded attributes and a per-row deletion stamp. A sealed
// segment may also carry its attributes column by column (SegmentColumns), attached before any
// snapshot holds it; the per-row blobs stay, for whole records and for copying rows.
//
// A memory segment takes appends from the single writer up to a fixed capacity; its buffers never
// move, so readers scan rows below their snapshot's count while the writer appends beyond it. A
// sealed segment is immutable apart from deletion stamps and is read from files (vectors mmap'd
// when mmap is on). A row is visible at version v when its deletion stamp is greater than v.
// Memory per row beyond its vector and bytes: two string views, a deletion stamp and a vector
// flag (41 bytes on 64-bit hosts), committed as rows arrive (a memory segment's capacity is
// address space until then).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "storage/file_names.h"
#include "storage/record_input.h"
#include "storage/segment_columns.h"
#include "util/file_util.h"
#include "util/lazy_array.h"

namespace tessera {

constexpr uint64_t kNeverDeleted = UINT64_MAX;

struct NamedColumn {
  std::string name;
  Region data;     // rows x dim f32
  Region present;  // one byte per row
  const float* row(uint32_t r, uint32_t dim) const { return static_cast<const float*>(data.data()) + size_t(r) * dim; }
  bool has(uint32_t r) const { return static_cast<const uint8_t*>(present.data())[r] != 0; }
};

class Segment : public std::enable_shared_from_this<Segment> {
 public:
  // recycled: its vector region is kept, when it is let go of, for the next recycled segment of
  // its capacity, and may come from one let go of before (at most 4 regions and 256 MB of vectors
  // written are kept, each for 30 s unused at most; see KeptVectors in segment.cc).
  static std::shared_ptr<Segment> NewMemory(uint64_t id, uint32_t dim, uint32_t capacity, bool recycled = false);
  // Frees the vector regions kept for at least idle; returns how many. A thread does it with 30 s
  // whenever regions are kept; tests call it directly.
  static size_t ReleaseKeptVectors(std::chrono::steady_clock::duration idle);
  // Opens the files Persist() wrote; del_file (may be empty) holds the deletion bitmap.
  // Its columns come from OpenSegmentColumns (built and written when may_write and the column file
  // is missing or damaged).
  static std::shared_ptr<Segment> OpenSealed(const std::string& dir, uint64_t id, uint32_t dim, bool mmap, const std::string& del_file,
                                             bool may_write);
  ~Segment();

  // Writes rows [0, rows) as segment files and fsyncs them.
  void Persist(const std::string& dir, uint32_t rows) const;
  // Writes the deletion bitmap (deletions stamped at or before version) and fsyncs it.
  void PersistDeletions(const std::string& path, uint32_t rows, uint64_t version) const;

  uint64_t id() const { return id_; }
  uint32_t dim() const { return dim_; }
  bool sealed() const { return sealed_; }
  uint32_t capacity() const { return capacity_; }
  uint32_t appended() const { return appended_; }  // writer-side count

  std::string_view row_id(uint32_t r) const { return LengthPrefixed(records_[r]); }
  // Asks for row r's record (its id, then its attributes) ahead of a read.
  void PrefetchRecord(uint32_t r) const { __builtin_prefetch(records_[r]); }
  std::string_view row_attrs(uint32_t r) const {
    std::string_view id = row_id(r);
    return LengthPrefixed(id.data() + id.size());
  }
  // Bytes of every row's id and attributes, at most (a bound on what writing any rows' records
  // costs; a snapshot seeing fewer rows sees fewer bytes).
  uint64_t record_bytes() const { return record_bytes_.load(std::memory_order_relaxed); }
  // The largest row's id and attributes, in bytes (what writing one hit's record can cost).
  uint64_t max_record_bytes() const { return max_record_bytes_.load(std::memory_order_relaxed); }
  // The attributes column by column; null for memory segments and sealed ones without a usable
  // column file (readers then read row_attrs).
  const SegmentColumns* columns() const { return columns_.get(); }
  // Before the segment is published (OpenSealed does it).
  void AttachColumns(SegmentColumnsPtr columns) { columns_ = std::move(columns); }
  // A sealed segment's rows file CRC (its identity for derived files); 0 for a memory segment.
  uint32_t rows_crc() const { return rows_crc_; }
  bool has_vector(uint32_t r) const { return has_vector_[r] != 0; }
  // Whether every row of [begin, begin + n) has a vector.
  bool all_have_vectors(uint32_t begin, uint32_t n) const;
  const float* vectors() const { return static_cast<const float*>(vectors_.data()); }
  const float* vector(uint32_t r) const { return vectors() + size_t(r) * dim_; }
  // Whether a rescore reads this sealed segment's rows from its vectors file (pread) rather than
  // through the map: the store's choice (StoreOptions::mapped_vector_bytes), made as it publishes.
  bool reads_rows_from_file() const { return rows_from_file_.load(std::memory_order_acquire); }
  // Sets it. Turning it on opens the vectors file (once) and takes the mapped rows out of the
  // resident set; it stays off for a segment whose vectors are not a mapped file, or while the
  // file cannot be opened (no descriptors left): the rows are then read through the map.
  void ReadRowsFromFile(bool on);
  // Row r's vector read from the vectors file into out (dim floats); out. Only once
  // reads_rows_from_file() has been seen true.
  const float* ReadVector(uint32_t r, float* out) const;
  // Once rows are read from the file: lets go of the map's pages of rows [begin, end), which a
  // pass over them (a build, an exact scan) mapped.
  void ReleaseMappedRows(uint32_t begin, uint32_t end) const {
    if (reads_rows_from_file()) vectors_.UnmapPages(size_t(begin) * dim_ * sizeof(float), size_t(end - begin) * dim_ * sizeof(float));
  }
  // After a pass over every record (the checksum at open, an index or table built from the ids):
  // takes the records file's mapped pages out of the resident set. They stay in the page cache; a
  // query maps again only its hits' records. Nothing when the file was read into memory.
  void ReleaseRecordPages() const { rows_file_.UnmapPages(0, rows_file_.size()); }
  // Bytes of a vector slot for every row: a sealed segment's vectors file.
  uint64_t vector_bytes() const { return uint64_t(capacity_) * dim_ * sizeof(float); }
  const NamedColumn* named(std::string_view name) const;
  std::vector<const NamedColumn*> named_columns() const;

  bool visible(uint32_t r, uint64_t version) const { return DeletedAt(r) > version; }
  bool deleted(uint32_t r) const { return DeletedAt(r) != kNeverDeleted; }
  // The version that deleted row r, or kNeverDeleted.
  uint64_t deleted_at(uint32_t r) const { return DeletedAt(r); }
  // Writer only, on a live row.
  void MarkDeleted(uint32_t r, uint64_t version) {
    SetDeletedAt(r, version);
    ++deleted_rows_;
  }
  // Rows deleted so far (writer-side; snapshots copy it).
  uint32_t deleted_rows() const { return deleted_rows_; }
  // Carries deletion stamps over from the memory segment this sealed one was written from.
  void CopyDeletionsFrom(const Segment& other, uint32_t rows);

  // Writer only: whether Append(rec) has a row and a column slot for each of rec's named vectors
  // (a segment holds at most kMaxNamedVectors distinct names, and redeclaring names can ask for
  // new ones).
  bool CanAppend(const RecordInput& rec) const;

  // Writer only. The row becomes visible when a snapshot with a larger row count is published.
  uint32_t Append(const RecordInput& rec, const std::vector<float>& floats);
  // Writer only: appends a copy of another segment's row (id, attributes, vectors), as compaction
  // does. The caller checks CanAppendCopy first.
  uint32_t AppendCopy(const Segment& source, uint32_t row);
  // Whether AppendCopy(source, row) has a row and a column slot for each of its named vectors.
  bool CanAppendCopy(const Segment& source, uint32_t row) const;

 private:
  Segment(uint64_t id, uint32_t dim, uint32_t capacity, bool sealed);
  // A row's record, as the rows file holds it: a 4-byte length and the id, then a 4-byte length and
  // the attributes. One pointer a row (8 bytes) rather than a view of each (32).
  static std::string_view LengthPrefixed(const char* at) {
    uint32_t n;
    std::memcpy(&n, at, sizeof n);
    return {at + sizeof n, n};
  }
  // Writes a row's record to the arena; where it begins.
  const char* RecordToArena(std::string_view id, std::string_view attrs);
  // Stamps are stored complemented, so the zero-filled memory of a new segment reads as "never
  // deleted" without a pass over its capacity.
  uint64_t DeletedAt(uint32_t r) const { return ~std::atomic_ref<uint64_t>(deleted_at_[r]).load(std::memory_order_acquire); }
  void SetDeletedAt(uint32_t r, uint64_t version) { std::atomic_ref<uint64_t>(deleted_at_[r]).store(~version, std::memory_order_release); }
  NamedColumn* NamedForAppend(std::string_view name);
  // Whether a row with these named vectors fits (a free row and a column slot for each name).
  bool FitsNamed(const std::vector<std::string_view>& names) const;
  struct NamedRowVector {
    std::string_view name;
    const float* values;
  };
  // When the vector just written at offset opened a new huge page of vectors_ (past its first),
  // has the next one committed on a background thread.
  void CommitVectorsAhead(size_t offset);
  // The one place a row is written: Append and AppendCopy both end here.
  uint32_t AppendRow(std::string_view id, std::string_view attrs, const float* vector, const std::vector<NamedRowVector>& named);

  uint64_t id_;
  uint32_t dim_;
  uint32_t capacity_;
  bool sealed_;
  uint32_t appended_ = 0;
  bool recycled_ = false;
  size_t stale_vector_bytes_ = 0;  // of vectors_, what a segment that held it before may have written
  uint32_t deleted_rows_ = 0;
  std::atomic<uint64_t> record_bytes_{0}, max_record_bytes_{0};

  Region vectors_;
  // A sealed segment's vectors file when mapped, and its reader for rescores (ReadRowsFromFile).
  std::string vectors_path_;
  std::once_flag vectors_file_once_;
  std::unique_ptr<ReadOnlyFile> vectors_file_;
  std::atomic<bool> rows_from_file_{false};
  // Sized to the capacity but committed only as rows arrive.
  LazyArray<uint8_t> has_vector_;
  LazyArray<const char*> records_;
  LazyArray<uint64_t> deleted_at_;
  // Named columns appear while readers run, so the slots are atomic; owned by named_owned_.
  std::atomic<NamedColumn*> named_[kMaxNamedVectors] = {};
  std::vector<std::unique_ptr<NamedColumn>> named_owned_;
  // Bytes behind records_: arena chunks for a memory segment, the rows file when sealed.
  std::vector<std::unique_ptr<char[]>> arena_;
  size_t arena_left_ = 0;
  char* arena_pos_ = nullptr;
  Region rows_file_;
  uint32_t rows_crc_ = 0;
  SegmentColumnsPtr columns_;
};

using SegmentPtr = std::shared_ptr<Segment>;

}  // namespace tessera
