#include "catalog/live_ids.h"

#include <bit>

#include "util/id_hash.h"

namespace tessera {

namespace {

// How many rows PutLiveRows hashes ahead of the one it inserts: enough misses in flight to hide
// the memory's latency.
constexpr uint32_t kHashAhead = 16;

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

void LiveIds::Reserve(size_t ids) {
  size_t slots = std::bit_ceil(std::max<size_t>(16, 2 * ids));
  // Doubling at least, so ids added one segment at a time rehash O(ids) entries in all.
  if (slots > capacity_) Rehash(std::max(slots, 2 * capacity_));
}

void LiveIds::Rehash(size_t slots) {
  LazyArray<Entry> next(slots);  // allocated first: running out of memory leaves the table whole
  next.CommitAll();              // the entries land all over it
  const size_t mask = slots - 1;
  for (size_t i = 0; i < capacity_; ++i) {
    const Entry& e = slots_[i];
    if (e.segment == nullptr) continue;
    size_t s = e.hash & mask;
    while (next[s].segment != nullptr) s = (s + 1) & mask;
    next[s] = e;
  }
  slots_ = std::move(next);
  capacity_ = slots;
}

}  // namespace tessera
