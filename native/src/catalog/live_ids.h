// The writer's map from each live record id of a collection to its row: an open-addressing table
// (linear probing, at most half full) of (segment, row, hash of the id) entries. The ids are read
// from the segments themselves, so the table holds no strings and indexing a segment's million
// ids allocates nothing per id: a std::unordered_map<std::string, ...> took about 0.5 s and 70 MB
// for a million ids (most of the time a large store took to open) and as long again to free.
// The table lives in lazily committed memory (huge pages once large), so growing it zeroes nothing
// and a million ids' 32 MB cost a few page faults, not thousands. Tables a map lets go of are kept
// for the next map that grows to their size (16 MiB of them at most): on a VM that hands freed
// memory back to its host, fresh pages cost a host fault each, and a new collection's table went
// through the same sizes as the last one's (10-26 ms of rehashing per 100,000 ids, nearly all of it
// committing fresh pages).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "storage/segment.h"
#include "util/lazy_array.h"

namespace tessera {

class LiveIds {
 public:
  struct Ref {
    Segment* segment;
    uint32_t row;
  };

  // The row holding id, if any.
  std::optional<Ref> Find(std::string_view id) const;
  // Maps the id of ref's row to ref, replacing the row it mapped to. The segment it replaces must
  // still be alive (its id is compared).
  void Put(Ref ref);
  // Put for every row of segment not deleted, hashing ids ahead of the inserts so that each
  // insert's slot is already on its way from memory; then lets go of the records' pages it read.
  void PutLiveRows(Segment& segment);
  // Forgets id; false when it was absent.
  bool Erase(std::string_view id);
  // Room for ids entries without growing.
  void Reserve(size_t ids);
  size_t size() const { return size_; }
  // The table's bytes (its slots).
  size_t bytes() const { return capacity_ * sizeof(Entry); }

  LiveIds() = default;
  ~LiveIds();
  LiveIds(LiveIds&& other) noexcept;
  LiveIds& operator=(LiveIds&& other) noexcept;

 private:
  struct Entry {
    Segment* segment = nullptr;  // null: a free slot
    uint32_t row = 0;
    uint32_t hash = 0;
  };
  // The slot holding id, or the free slot where it would go.
  size_t SlotOf(std::string_view id, uint32_t hash) const;
  void Insert(Ref ref, uint32_t hash);
  void Rehash(size_t slots);
  struct KeptTables;
  static KeptTables& Kept();
  // A zeroed table of slots entries: a kept one when there is one that size, else new memory.
  static LazyArray<Entry> TakeTable(size_t slots);
  // Keeps table for TakeTable, or frees it when the kept tables would pass their bound.
  static void KeepTable(LazyArray<Entry>&& table) noexcept;

  LazyArray<Entry> slots_;  // capacity_ long, a power of two (or 0)
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace tessera
