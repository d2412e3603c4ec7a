// An immutable, reference-counted view of the store at one commit version. Readers take one and
// never block the writer; the writer publishes a new one after each durable group of batches.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/collection_schema.h"
#include "index/segment_indexes.h"
#include "storage/segment.h"

namespace tessera {

struct SegmentRef {
  SegmentPtr segment;
  uint32_t rows;              // rows of the segment this snapshot sees
  uint32_t deleted_rows;      // of those, how many are deleted at this snapshot's version
  SegmentIndexesPtr indexes;  // derived from exactly those rows; never null
};

struct CollectionState {
  std::string name;
  CollectionSchemaPtr schema;
  std::vector<SegmentRef> segments;
  uint64_t rows = 0;       // every row slot, superseded ones included
  uint64_t dead_rows = 0;  // superseded or deleted rows, reclaimable by compaction
  uint64_t live_rows = 0;
  uint64_t live_id_table_bytes = 0;  // the writer's table of live ids, 0 until a write mapped them
  // false: listed, but none of its rows are held (StoreOptions::resident).
  bool resident = true;
  // When a read (or, on a writer, a write) last needed its rows (steady clock, us; 0: not since
  // the collection was loaded), shared by every state of the collection: a cache holding some
  // collections keeps those used most recently.
  std::shared_ptr<std::atomic<int64_t>> last_used_us;
};

using CollectionPtr = std::shared_ptr<const CollectionState>;

struct Snapshot {
  uint64_t version = 0;
  std::map<std::string, CollectionPtr> collections;
  std::map<std::string, std::string> aliases;

  // A concrete collection, or the one an alias points at; null when neither exists.
  const CollectionState* Find(const std::string& name) const;
  // Find, and NotResidentError when the collection is not resident (its rows are to be read).
  const CollectionState* Resolve(const std::string& name) const;
  // A read is about to need the rows of scope's collections: NotResidentError naming those that
  // are not resident, if any; else each one's last_used_us is set.
  static void Reading(const std::vector<const CollectionState*>& scope);
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

}  // namespace tessera
