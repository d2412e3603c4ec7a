#include "catalog/live_ids.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "util/id_hash.h"

namespace tessera {

namespace {

// How many rows PutLiveRows hashes ahead of the one it inserts: enough misses in flight to hide
// the memory's latency.
constexpr uint32_t kHashAhead = 16;
// The bytes of tables kept for reuse, at most.
constexpr size_t kKeptBytes = 16 << 20;

}  // namespace

size_t LiveIds::SlotOf(std::string_view id, uint32_t hash) const {
  const size_t mask = capacity_ - 1;
  for (size_t s = hash & mask;; s = (s + 1) & mask) {
    const Entry& e = slots_[s];
    if (e.segment == nullptr || (e.hash == hash && e.segment->row_id(e.row) == id)) return s;
  }
}

std::optional<LiveIds::Ref> LiveIds::Find(std::string_view id) const {
  if (size_ == 0) return std::nullopt;
  const Entry& e = slots_[SlotOf(id, uint32_t(IdHash(id)))];
  if (e.segment == nullptr) return std::nullopt;
  return Ref{e.segment, e.row};
}

void LiveIds::Put(Ref ref) { Insert(ref, uint32_t(IdHash(ref.segment->row_id(ref.row)))); }

void LiveIds::Insert(Ref ref, uint32_t hash) {
  if (2 * (size_ + 1) > capacity_) Reserve(size_ + 1);
  Entry& e = slots_[SlotOf(ref.segment->row_id(ref.row), hash)];
  if (e.segment == nullptr) ++size_;
  e = Entry{ref.segment, ref.row, hash};
}

void LiveIds::PutLiveRows(Segment& segment) {
  const uint32_t rows = segment.appended();
  uint32_t hashes[kHashAhead];
  // Row r's hash takes the place of row r - kHashAhead's, which is inserted first.
  for (uint32_t r = 0; r < rows + kHashAhead; ++r) {
    if (r >= kHashAhead) {
      uint32_t row = r - kHashAhead;
      if (!segment.deleted(row)) Insert(Ref{&segment, row}, hashes[row % kHashAhead]);
    }
    if (r < rows) {
      uint32_t hash = uint32_t(IdHash(segment.row_id(r)));
      hashes[r % kHashAhead] = hash;
      if (capacity_ > 0) __builtin_prefetch(&slots_[hash & (capacity_ - 1)], 1);
    }
  }
  segment.ReleaseRecordPages();  // the pass read every id
}

bool LiveIds::Erase(std::string_view id) {
  if (size_ == 0) return false;
  const size_t mask = capacity_ - 1;
  size_t hole = SlotOf(id, uint32_t(IdHash(id)));
  if (slots_[hole].segment == nullptr) return false;
  // Backward-shift deletion: each later entry of the run moves into the hole unless its home slot
  // lies cyclically after the hole, so every entry stays reachable from its home without tombstones.
  for (size_t next = (hole + 1) & mask; slots_[next].segment != nullptr; next = (next + 1) & mask) {
    size_t home = slots_[next].hash & mask;
    bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (stays) continue;
    slots_[hole] = slots_[next];
    hole = next;
  }
  slots_[hole] = Entry{};
  --size_;
  return true;
}

LiveIds::~LiveIds() { KeepTable(std::move(slots_)); }

LiveIds::LiveIds(LiveIds&& other) noexcept : slots_(std::move(other.slots_)), capacity_(other.capacity_), size_(other.size_) {
  other.capacity_ = other.size_ = 0;
}

LiveIds& LiveIds::operator=(LiveIds&& other) noexcept {
  if (this != &other) {
    KeepTable(std::move(slots_));
    slots_ = std::move(other.slots_);
    capacity_ = other.capacity_;
    size_ = other.size_;
    other.capacity_ = other.size_ = 0;
  }
  return *this;
}

struct LiveIds::KeptTables {
  std::mutex mu;
  std::vector<LazyArray<Entry>> tables;
  size_t bytes = 0;
};

// Process-wide and never destroyed: maps are let go of by threads that may outlive static objects.
LiveIds::KeptTables& LiveIds::Kept() {
  static auto* kept = new KeptTables;
  return *kept;
}

LazyArray<LiveIds::Entry> LiveIds::TakeTable(size_t slots) {
  KeptTables& kept = Kept();
  LazyArray<Entry> table;
  {
    std::lock_guard<std::mutex> lock(kept.mu);
    auto it = std::find_if(kept.tables.begin(), kept.tables.end(), [&](const LazyArray<Entry>& t) { return t.capacity() == slots; });
    if (it == kept.tables.end()) return LazyArray<Entry>(slots);
    table = std::move(*it);
    kept.tables.erase(it);
    kept.bytes -= slots * sizeof(Entry);
  }
  // Zeroed outside the lock: another writer's map may be growing meanwhile.
  std::memset(static_cast<void*>(table.data()), 0, slots * sizeof(Entry));
  return table;
}

void LiveIds::KeepTable(LazyArray<Entry>&& table) noexcept {
  const size_t bytes = table.capacity() * sizeof(Entry);
  if (bytes == 0) return;
  KeptTables& kept = Kept();
  std::lock_guard<std::mutex> lock(kept.mu);
  if (kept.bytes + bytes > kKeptBytes) return;  // freed as it goes out of scope
  try {
    kept.tables.push_back(std::move(table));
    kept.bytes += bytes;
  } catch (const std::bad_alloc&) {
  }
}

void LiveIds::Reserve(size_t ids) {
  size_t slots = std::bit_ceil(std::max<size_t>(16, 2 * ids));
  // Doubling at least, so ids added one segment at a time rehash O(ids) entries in all.
  if (slots > capacity_) Rehash(std::max(slots, 2 * capacity_));
}

void LiveIds::Rehash(size_t slots) {
  LazyArray<Entry> next = TakeTable(slots);  // first: running out of memory leaves the table whole
  next.CommitAll();                          // the entries land all over it
  const size_t mask = slots - 1;
  for (size_t i = 0; i < capacity_; ++i) {
    const Entry& e = slots_[i];
    if (e.segment == nullptr) continue;
    size_t s = e.hash & mask;
    while (next[s].segment != nullptr) s = (s + 1) & mask;
    next[s] = e;
  }
  KeepTable(std::move(slots_));
  slots_ = std::move(next);
  capacity_ = slots;
}

}  // namespace tessera
