#include "storage/segment.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "tessera/error.h"
#include "util/background_worker.h"
#include "util/byte_io.h"
#include "util/crc32c.h"

namespace tessera {
namespace {

constexpr uint32_t kRowsMagic = 0x31525354;  // "TSR1"
constexpr size_t kArenaChunk = 1 << 16;
// Regions kept, and the bytes of vectors their segments wrote, at most. The count bounds the
// mappings held (a tenant server closes many small stores); one per size is what a writer reuses.
constexpr size_t kKeptVectorRegions = 4;
constexpr size_t kKeptVectorBytes = 256 << 20;
// How long a kept region waits for a taker before its memory goes back to the system: long enough
// for the next checkpoint or store of a steady writer, short enough that a server that closed its
// stores does not hold their vectors' memory while idle.
constexpr auto kKeptVectorIdle = std::chrono::seconds(30);

// The vector regions of recycled memory segments (those rows are appended to) let go of (sealed by
// a checkpoint, a store closed), kept for the next one of the same size: their pages are backed
// already, where a fresh region's cost a fault each (5-6 ms a 2 MiB huge page on a VM whose host
// takes freed memory back; durable ingests faster in 6 of 8 alternated pairs, bench/README). Each
// with the bytes its segment may have written, which the next one must not show, and when it was
// kept.
struct KeptVectors {
  struct Entry {
    Region region;
    size_t written;
    std::chrono::steady_clock::time_point since;
  };
  std::mutex mu;
  std::vector<Entry> regions;
  size_t bytes = 0;
  bool releaser = false;  // a thread frees the regions left idle
};

KeptVectors& Kept() {
  static auto* kept = new KeptVectors;  // never destroyed: segments may be let go of at exit
  return *kept;
}

// Sleeps until the oldest kept region will have been idle kKeptVectorIdle, frees what has, and
// leaves once none is kept (a region kept later is newer, so no earlier wake is ever needed).
// Detached: it touches nothing but the never-destroyed KeptVectors.
void ReleaseIdleVectors() {
  KeptVectors& kept = Kept();
  for (;;) {
    std::chrono::steady_clock::time_point wake;
    {
      std::lock_guard<std::mutex> lock(kept.mu);
      if (kept.regions.empty()) {
        kept.releaser = false;
        return;
      }
      auto oldest =
          std::min_element(kept.regions.begin(), kept.regions.end(), [](const auto& a, const auto& b) { return a.since < b.since; });
      wake = oldest->since + kKeptVectorIdle;
    }
    std::this_thread::sleep_until(wake);
    Segment::ReleaseKeptVectors(kKeptVectorIdle);
  }
}

}  // namespace

size_t Segment::ReleaseKeptVectors(std::chrono::steady_clock::duration idle) {
  std::vector<Region> freed;  // unmapped after the lock is let go of
  KeptVectors& kept = Kept();
  {
    std::lock_guard<std::mutex> lock(kept.mu);
    const auto now = std::chrono::steady_clock::now();
    auto idle_end = std::partition(kept.regions.begin(), kept.regions.end(), [&](const auto& k) { return now - k.since < idle; });
    for (auto it = idle_end; it != kept.regions.end(); ++it) {
      kept.bytes -= it->written;
      freed.push_back(std::move(it->region));
    }
    kept.regions.erase(idle_end, kept.regions.end());
  }
  return freed.size();
}

Segment::Segment(uint64_t id, uint32_t dim, uint32_t capacity, bool sealed) : id_(id), dim_(dim), capacity_(capacity), sealed_(sealed) {
  has_vector_ = LazyArray<uint8_t>(capacity);
  records_ = LazyArray<const char*>(capacity);
  deleted_at_ = LazyArray<uint64_t>(capacity);
}

Segment::~Segment() {
  if (!recycled_ || vectors_.size() == 0) return;
  size_t written = std::max(size_t(appended_) * dim_ * sizeof(float), stale_vector_bytes_);
  KeptVectors& kept = Kept();
  std::lock_guard<std::mutex> lock(kept.mu);
  if (kept.regions.size() == kKeptVectorRegions || kept.bytes + written > kKeptVectorBytes) return;  // freed with the segment
  kept.regions.push_back({std::move(vectors_), written, std::chrono::steady_clock::now()});
  kept.bytes += written;
  if (kept.releaser) return;
  try {
    std::thread(ReleaseIdleVectors).detach();
    kept.releaser = true;
  } catch (const std::system_error&) {
    // No thread to spare: the regions wait for the next segment let go of to start one.
  }
}

std::shared_ptr<Segment> Segment::NewMemory(uint64_t id, uint32_t dim, uint32_t capacity, bool recycled) {
  std::shared_ptr<Segment> s(new Segment(id, dim, capacity, false));
  s->recycled_ = recycled;
  const size_t bytes = size_t(capacity) * dim * sizeof(float);
  if (recycled) {
    KeptVectors& kept = Kept();
    std::lock_guard<std::mutex> lock(kept.mu);
    auto it = std::find_if(kept.regions.begin(), kept.regions.end(), [&](const auto& k) { return k.region.size() == bytes; });
    if (it != kept.regions.end()) {
      s->vectors_ = std::move(it->region);
      s->stale_vector_bytes_ = it->written;
      kept.bytes -= it->written;
      kept.regions.erase(it);
      return s;
    }
  }
  s->vectors_ = Region::Anonymous(bytes);
  return s;
}

const char* Segment::RecordToArena(std::string_view id, std::string_view attrs) {
  const size_t bytes = 2 * sizeof(uint32_t) + id.size() + attrs.size();
  if (bytes > arena_left_) {
    size_t size = std::max(kArenaChunk, bytes);
    arena_.emplace_back(new char[size]);
    arena_pos_ = arena_.back().get();
    arena_left_ = size;
  }
  const char* record = arena_pos_;
  for (std::string_view field : {id, attrs}) {
    uint32_t n = uint32_t(field.size());
    std::memcpy(arena_pos_, &n, sizeof n);
    if (!field.empty()) std::memcpy(arena_pos_ + sizeof n, field.data(), field.size());
    arena_pos_ += sizeof n + field.size();
  }
  arena_left_ -= bytes;
  return record;
}

const NamedColumn* Segment::named(std::string_view name) const {
  for (size_t k = 0; k < kMaxNamedVectors; ++k) {
    const NamedColumn* c = named_[k].load(std::memory_order_acquire);
    if (c == nullptr) return nullptr;
    if (c->name == name) return c;
  }
  return nullptr;
}

std::vector<const NamedColumn*> Segment::named_columns() const {
  std::vector<const NamedColumn*> out;
  for (size_t k = 0; k < kMaxNamedVectors; ++k) {
    const NamedColumn* c = named_[k].load(std::memory_order_acquire);
    if (c == nullptr) break;
    out.push_back(c);
  }
  return out;
}

NamedColumn* Segment::NamedForAppend(std::string_view name) {
  size_t k = 0;
  for (; k < kMaxNamedVectors; ++k) {
    NamedColumn* c = named_[k].load(std::memory_order_relaxed);
    if (c == nullptr) break;
    if (c->name == name) return c;
  }
  if (k == kMaxNamedVectors) throw Internal("a segment holds at most 16 named vectors");  // CanAppend prevents it
  auto column = std::make_unique<NamedColumn>();
  column->name = name;
  column->data = Region::Anonymous(size_t(capacity_) * dim_ * sizeof(float));
  column->present = Region::Anonymous(capacity_);
  NamedColumn* raw = column.get();
  named_owned_.push_back(std::move(column));
  named_[k].store(raw, std::memory_order_release);
  return raw;
}

bool Segment::FitsNamed(const std::vector<std::string_view>& names) const {
  if (sealed_ || appended_ >= capacity_) return false;
  size_t missing = 0;
  for (std::string_view name : names) missing += named(name) == nullptr ? 1 : 0;
  return named_owned_.size() + missing <= kMaxNamedVectors;
}

bool Segment::CanAppend(const RecordInput& rec) const {
  std::vector<std::string_view> names;
  for (const NamedVectorInput& nv : rec.named) names.push_back(nv.name);
  return FitsNamed(names);
}

bool Segment::CanAppendCopy(const Segment& source, uint32_t row) const {
  std::vector<std::string_view> names;
  for (const NamedColumn* c : source.named_columns())
    if (c->has(row)) names.push_back(c->name);
  return FitsNamed(names);
}

uint32_t Segment::Append(const RecordInput& rec, const std::vector<float>& floats) {
  std::vector<NamedRowVector> named;
  for (const NamedVectorInput& nv : rec.named) named.push_back({nv.name, floats.data() + nv.offset});
  return AppendRow(rec.id, rec.attrs, rec.vector_offset >= 0 ? floats.data() + rec.vector_offset : nullptr, named);
}

bool Segment::all_have_vectors(uint32_t begin, uint32_t n) const { return std::memchr(&has_vector_[begin], 0, n) == nullptr; }

uint32_t Segment::AppendCopy(const Segment& source, uint32_t row) {
  std::vector<NamedRowVector> named;
  for (const NamedColumn* c : source.named_columns())
    if (c->has(row)) named.push_back({c->name, c->row(row, dim_)});
  return AppendRow(source.row_id(row), source.row_attrs(row), source.has_vector(row) ? source.vector(row) : nullptr, named);
}

void Segment::CommitVectorsAhead(size_t offset) {
  // A page first touched costs the writer a fault: ~17 us per 4 KiB on a VM, 5-6 ms for a 2 MiB
  // huge page its host has not backed yet. Rows arrive in order, so the next page is known.
  static BackgroundWorker committer(std::chrono::milliseconds(100));
  std::optional<size_t> ahead = HugePageAhead(reinterpret_cast<uintptr_t>(vectors_.data()), offset, size_t(dim_) * sizeof(float));
  if (!ahead) return;
  committer.Post([self = weak_from_this(), from = *ahead] {
    if (std::shared_ptr<Segment> s = self.lock()) s->vectors_.Populate(from, kHugePage);
  });
}

uint32_t Segment::AppendRow(std::string_view id, std::string_view attrs, const float* vector, const std::vector<NamedRowVector>& named) {
  uint32_t row = appended_;
  records_[row] = RecordToArena(id, attrs);
  uint64_t bytes = id.size() + attrs.size();
  record_bytes_.store(record_bytes_.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
  if (bytes > max_record_bytes_.load(std::memory_order_relaxed)) max_record_bytes_.store(bytes, std::memory_order_relaxed);
  size_t vec_bytes = size_t(dim_) * sizeof(float);
  if (vector != nullptr) {
    std::memcpy(static_cast<float*>(vectors_.data()) + size_t(row) * dim_, vector, vec_bytes);
    CommitVectorsAhead(size_t(row) * vec_bytes);
    has_vector_[row] = 1;
  } else if (size_t(row) * vec_bytes < stale_vector_bytes_) {
    // A kept region: the previous segment's vector here would be persisted as this row's.
    std::memset(static_cast<float*>(vectors_.data()) + size_t(row) * dim_, 0, vec_bytes);
  }
  for (const NamedRowVector& nv : named) {
    NamedColumn* c = NamedForAppend(nv.name);
    std::memcpy(static_cast<float*>(c->data.data()) + size_t(row) * dim_, nv.values, vec_bytes);
    static_cast<uint8_t*>(c->present.data())[row] = 1;
  }
  ++appended_;
  return row;
}

void Segment::Persist(const std::string& dir, uint32_t rows) const {
  std::vector<const NamedColumn*> named = named_columns();
  std::string meta;
  PutFixed<uint32_t>(&meta, kRowsMagic);
  PutFixed<uint32_t>(&meta, rows);
  PutFixed<uint32_t>(&meta, uint32_t(named.size()));
  for (const NamedColumn* c : named) PutBytes(&meta, c->name);
  meta.append(reinterpret_cast<const char*>(has_vector_.data()), rows);
  for (const NamedColumn* c : named) meta.append(static_cast<const char*>(c->present.data()), rows);
  for (uint32_t r = 0; r < rows; ++r) {
    PutBytes(&meta, row_id(r));
    PutBytes(&meta, row_attrs(r));
  }
  PutFixed<uint32_t>(&meta, Crc32c(meta.data(), meta.size()));
  size_t vec_bytes = size_t(rows) * dim_ * sizeof(float);
  WriteFileAtomic(SegmentVectorsPath(dir, id_), std::string_view(static_cast<const char*>(vectors_.data()), vec_bytes));
  for (size_t k = 0; k < named.size(); ++k)
    WriteFileAtomic(SegmentNamedPath(dir, id_, k), std::string_view(static_cast<const char*>(named[k]->data.data()), vec_bytes));
  WriteFileAtomic(SegmentRowsPath(dir, id_), meta);
}

void Segment::PersistDeletions(const std::string& path, uint32_t rows, uint64_t version) const {
  std::string bitmap((rows + 7) / 8, '\0');
  for (uint32_t r = 0; r < rows; ++r)
    if (DeletedAt(r) <= version) bitmap[r / 8] |= char(1 << (r % 8));
  WriteFileAtomic(path, bitmap);
}

void Segment::ReadRowsFromFile(bool on) {
  if (!on || vectors_path_.empty()) return rows_from_file_.store(false, std::memory_order_release);
  if (reads_rows_from_file()) return;
  try {
    std::call_once(vectors_file_once_, [&] { vectors_file_ = std::make_unique<ReadOnlyFile>(vectors_path_); });
  } catch (const std::exception&) {
    return;  // the next publish tries again
  }
  rows_from_file_.store(true, std::memory_order_release);
  ReleaseMappedRows(0, capacity_);  // after the switch, so a rescore under way maps no more of them
}

const float* Segment::ReadVector(uint32_t r, float* out) const {
  size_t bytes = size_t(dim_) * sizeof(float);
  vectors_file_->ReadAt(uint64_t(r) * bytes, bytes, out);
  return out;
}

void Segment::CopyDeletionsFrom(const Segment& other, uint32_t rows) {
  for (uint32_t r = 0; r < rows; ++r) SetDeletedAt(r, other.DeletedAt(r));
  deleted_rows_ = other.deleted_rows_;
}

std::shared_ptr<Segment> Segment::OpenSealed(const std::string& dir, uint64_t id, uint32_t dim, bool mmap, const std::string& del_file,
                                             bool may_write) {
  // Mapped like the vectors (read into memory when mmap is off): records point into it, and a
  // large store's open copies none of them.
  Region rows_region = Region::OpenFile(SegmentRowsPath(dir, id), mmap);
  std::string_view rows_file(static_cast<const char*>(rows_region.data()), rows_region.size());
  if (rows_file.size() < 16) throw Internal("corrupt segment " + SegmentRowsPath(dir, id));
  uint32_t stored_crc;
  std::memcpy(&stored_crc, rows_file.data() + rows_file.size() - 4, 4);
  if (Crc32c(rows_file.data(), rows_file.size() - 4) != stored_crc)
    throw Internal("corrupt segment " + SegmentRowsPath(dir, id) + ": checksum mismatch");
  ByteReader r(rows_file.substr(0, rows_file.size() - 4));
  if (r.Fixed<uint32_t>() != kRowsMagic) throw Internal("corrupt segment " + SegmentRowsPath(dir, id));
  uint32_t rows = r.Fixed<uint32_t>();
  std::shared_ptr<Segment> s(new Segment(id, dim, rows, true));
  std::vector<std::string> names(r.Fixed<uint32_t>());
  for (std::string& n : names) n = std::string(r.Bytes());
  std::memcpy(s->has_vector_.data(), r.Raw(rows).data(), rows);
  size_t vec_bytes = size_t(rows) * dim * sizeof(float);
  auto load = [&](const std::string& path) {
    Region region = Region::OpenFile(path, mmap);
    if (region.size() != vec_bytes) throw Internal("corrupt segment " + path + ": wrong size");
    return region;
  };
  for (size_t k = 0; k < names.size(); ++k) {
    auto column = std::make_unique<NamedColumn>();
    column->name = names[k];
    column->present = Region::Anonymous(rows);
    std::memcpy(column->present.data(), r.Raw(rows).data(), rows);
    column->data = load(SegmentNamedPath(dir, id, k));
    s->named_[k].store(column.get());
    s->named_owned_.push_back(std::move(column));
  }
  s->vectors_ = load(SegmentVectorsPath(dir, id));
  if (mmap) s->vectors_path_ = SegmentVectorsPath(dir, id);
  // Records point into the rows file, which the segment keeps.
  s->rows_file_ = std::move(rows_region);
  s->rows_crc_ = stored_crc;
  s->record_bytes_.store(rows_file.size(), std::memory_order_relaxed);
  ByteReader body(rows_file.substr(0, rows_file.size() - 4));
  body.Raw(12);
  for (const std::string& n : names) body.Raw(4 + n.size());
  body.Raw(size_t(rows) * (1 + names.size()));
  uint64_t max_bytes = 0;
  for (uint32_t row = 0; row < rows; ++row) {
    s->records_[row] = body.rest().data();
    uint64_t bytes = body.Bytes().size();
    bytes += body.Bytes().size();
    max_bytes = std::max(max_bytes, bytes);
  }
  s->max_record_bytes_.store(max_bytes, std::memory_order_relaxed);
  if (!del_file.empty()) {
    std::string bitmap = ReadWholeFile(dir + "/" + del_file);
    if (bitmap.size() != (rows + 7) / 8) throw Internal("corrupt deletion bitmap " + del_file);
    for (uint32_t row = 0; row < rows; ++row)
      if (bitmap[row / 8] & (1 << (row % 8))) {
        s->SetDeletedAt(row, 0);
        ++s->deleted_rows_;
      }
  }
  s->appended_ = rows;
  s->columns_ = OpenSegmentColumns(dir, *s, may_write);  // which may read every record again
  // The checksum and the walks above touched every page.
  s->ReleaseRecordPages();
  return s;
}

}  // namespace tessera
