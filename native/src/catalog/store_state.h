// The writer's mutable view of the catalog and rows: validates ops against the current state,
// applies them at a version, and freezes the result into a Snapshot. Used by the live writer and
// by recovery alike.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "catalog/compaction.h"
#include "catalog/live_ids.h"
#include "catalog/manifest.h"
#include "catalog/ops.h"
#include "catalog/snapshot.h"
#include "util/thread_pool.h"

namespace tessera {

class StoreState {
 public:
  StoreState(uint32_t dim, uint64_t next_segment_id) : dim_(dim), next_segment_id_(next_segment_id) {}

  // Throws Error (400/404) when op cannot apply to the current state; changes nothing.
  void Validate(const Op& op) const;
  // Before a validated upsert or delete is logged: maps the live ids of its collection if no write
  // did since open, so the table's memory is found (or not: bad_alloc, that batch alone fails)
  // before anything is written. Apply maps them too where this was not called (a replay).
  void PrepareApply(const Op& op);
  // Applies a validated op. Returns rows upserted or deleted (0 for catalog ops).
  uint64_t Apply(const Op& op, uint64_t version);
  // Rows appended since the last freeze get their full-text postings first, and sealed segments
  // the filter and id indexes they lack, segments in parallel on pool when given (recovery and
  // declaration changes can have every segment to index).
  SnapshotPtr Freeze(uint64_t version, ThreadPool* pool = nullptr);
  // The collection an alias points at, or name itself.
  std::string ResolveAlias(const std::string& name) const {
    auto it = aliases_.find(name);
    return it == aliases_.end() ? name : it->second;
  }

  // Recovery: a collection and the sealed segments an earlier checkpoint wrote for it, each with
  // the indexes derived from it so far (catalog/sealed_indexes.h). A collection loaded without its
  // rows (resident false) keeps the manifest's entries of its segments (cold), and takes no rows
  // from the log either, only its schema: the log's upserts and deletes of it are noted
  // (ColdRowsLogged) instead.
  void AddCollection(const std::string& name, CollectionSchema schema, bool resident = true, std::vector<ManifestSegment> cold = {});
  // Collections not resident whose rows the log changed (see AddCollection): a reader skips them,
  // a writer cannot (a checkpoint would lose them).
  const std::set<std::string>& ColdRowsLogged() const { return cold_rows_logged_; }

  // A writer holding some collections (StoreOptions::resident). Whether a collection's rows
  // changed since the last checkpoint (an upsert, a delete, or its creation: MarkCheckpointed
  // clears it); the manifest's entries of a listed collection's segments when it is not resident
  // (nullptr when it is, or is not listed).
  bool RowsChangedSinceCheckpoint(const std::string& name) const;
  void MarkCheckpointed();
  const std::vector<ManifestSegment>* ColdSegments(const std::string& name) const;
  // Stops holding a resident collection's rows: it stays listed with its schema, its segments let
  // go and cold (their entries in the last manifest, which names every row: its rows did not
  // change since that checkpoint).
  void Release(const std::string& name, std::vector<ManifestSegment> cold);
  // Holds the rows of a collection listed without them again: its cold segments, opened.
  void Hold(const std::string& name, std::vector<std::pair<SegmentPtr, SegmentIndexesPtr>> sealed);
  // A live write used the op's collection's rows (not a replay): the cache's recency.
  void NoteUse(const Op& op);
  void AdoptSealedSegment(const std::string& collection, SegmentPtr segment, SegmentIndexesPtr indexes);
  void SetAlias(const std::string& name, const std::string& target) { aliases_[name] = target; }

  // Checkpoint: swaps in the sealed segment written from a memory segment's rows.
  void ReplaceSegment(const std::string& collection, const SegmentPtr& memory_segment, SegmentPtr sealed);
  uint64_t memory_rows() const;
  // The rows of the fullest memory segment.
  uint32_t largest_memory_segment() const;
  // Bytes of vectors held: every row's slot (footprint.vector_bytes, superseded rows included) plus
  // each named-vector column, which spans all rows of its segment. Summed from the segments, so it
  // stays right however segments are replaced.
  uint64_t vector_bytes() const;
  // Whether a memory segment is 7/8 full: checkpointing then seals it whole, before the next batch
  // overflows into a small segment of its own (which would get an index of its own).
  bool MemorySegmentNearlyFull() const;
  // Attaches a sealed segment's quantized first pass and approximate index (either may be null);
  // false when the segment is gone (its collection dropped) or is not sealed.
  bool AttachVectorIndexes(const std::string& collection, uint64_t segment_id, VectorIndexPtr first_pass, VectorIndexPtr ann);
  uint64_t next_segment_id() const { return next_segment_id_; }
  uint64_t NewSegmentId() { return next_segment_id_++; }

  // Compaction's switch: replaces job's inputs by out (removes them when out has no segment),
  // carrying over every deletion made since job.version and pointing their live ids at out's rows.
  // False, changing nothing, when the inputs are no longer the collection's (it was dropped).
  bool InstallCompaction(const CompactionJob& job, const CompactedSegment& out);
  // Whether a memory segment is large and mostly dead: sealing it lets compaction reclaim it.
  bool MemorySegmentMostlyDead() const;

 private:
  using RowRef = LiveIds::Ref;
  struct Slot {
    SegmentPtr segment;
    SegmentIndexesPtr indexes;
  };
  struct Collection {
    std::string name;
    CollectionSchemaPtr schema = std::make_shared<const CollectionSchema>();
    std::vector<Slot> segments;  // the last one takes appends while it is a memory segment
    // Every live id's row, mapped by the first upsert or delete since open (a writer's, or one a
    // Reader or an open replays from the log): until then reads find ids through the segments'
    // id indexes and no table is held (16 bytes a slot, 32-64 bytes a live id).
    LiveIds ids;
    bool ids_mapped = false;
    uint64_t rows = 0;
    uint64_t dead_rows = 0;
    bool resident = true;
    bool rows_changed = false;          // an upsert, a delete or its creation since the last checkpoint
    std::vector<ManifestSegment> cold;  // not resident: its segments as the last manifest names them
    std::shared_ptr<std::atomic<int64_t>> last_used_us = std::make_shared<std::atomic<int64_t>>(0);
    CollectionPtr frozen;  // reused by Freeze() while nothing changed
  };

  Collection* Find(const std::string& name);
  const Collection* Find(const std::string& name) const;
  Collection& GetOrCreate(const std::string& name);
  Segment& AppendTarget(Collection& c, const RecordInput& rec);
  // c's live-id table, mapped from its segments the first time a write needs it.
  static LiveIds& WriterIds(Collection& c);
  // base with what a sealed segment of c derives and base lacks (the filter index the collection
  // declares, the id index), built in memory; the store saves them beside the segment later.
  static SegmentIndexesPtr SealedIndexes(const Collection& c, const Segment& segment, const SegmentIndexesPtr& base);
  static bool LacksSealedIndexes(const Collection& c, const Slot& slot);
  // Replaces c's schema by a copy changed by edit; snapshots keep the one they hold.
  template <typename Edit>
  void EditSchema(Collection& c, Edit&& edit) {
    auto schema = std::make_shared<CollectionSchema>(*c.schema);
    edit(*schema);
    c.schema = std::move(schema);
  }
  void Touch(Collection& c) { c.frozen.reset(); }

  uint32_t dim_;
  uint64_t next_segment_id_;
  std::map<std::string, std::unique_ptr<Collection>> collections_;
  std::map<std::string, std::string> aliases_;
  std::set<std::string> cold_rows_logged_;
};

// Collection and alias names: 1 to 128 bytes of letters, digits, '_', '-', '.', not starting
// with '.'. Throws Error(400) naming the rule.
void ValidateName(const std::string& name, const char* what);

}  // namespace tessera
