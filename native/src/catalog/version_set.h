// The store's versions: the writer's state at the latest commit version, the write-ahead log that
// makes each version durable, and the files on disk. It recovers the latest version from MANIFEST
// and the log, and checkpoints: seals memory segments into files, writes a new MANIFEST, empties
// the log and removes the files no manifest names any more. A compaction's switch writes a MANIFEST
// too: the same commit version and log, its inputs' files replaced by its output's. Called by one
// writer at a time (the group-commit leader, or a compaction's switch, under the writer mutex).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/log_pipeline.h"
#include "catalog/manifest.h"
#include "catalog/ops.h"
#include "catalog/snapshot.h"
#include "catalog/store_state.h"
#include "storage/wal.h"
#include "util/thread_pool.h"

namespace tessera {

class VersionSet {
 public:
  // dir empty: an in-memory store (no files). logging: this process writes the directory.
  // history_versions: a writer keeps the files its last that many versions need (see history.h).
  VersionSet(std::string dir, uint32_t dim, bool mmap, bool logging, uint64_t history_versions, ThreadPool& pool);

  // Loads MANIFEST and replays the log after it; a writer cuts a torn log tail and opens the log
  // for appending.
  void Recover();
  // A reader adopts the newest committed state: the log's new records when the writer has not
  // checkpointed since, else the new manifest and log loaded afresh.
  struct Refreshed {
    bool moved;     // the version went forward
    bool switched;  // the state was replaced (moved, or the same version laid out anew)
  };
  Refreshed Refresh();
  // The collections whose segments a load opens (nullopt: all; see StoreOptions::resident); the
  // others are listed, their rows left unread. Takes effect at the next load. A writer's load
  // throws NotResidentError naming the collections not held whose rows the log changed.
  void SetResident(std::optional<std::set<std::string>> names) { resident_ = std::move(names); }
  bool holds_some() const { return resident_.has_value(); }
  // A reader loads the newest state on disk afresh holding names (as SetResident), never one
  // behind its own. A load that fails leaves it holding what it held.
  void ReloadHolding(std::optional<std::set<std::string>> names);
  // A writer holding some collections: whether a resident collection's rows changed since the last
  // checkpoint (then it cannot be released before the next); Release lets resident collections'
  // rows go (they stay listed, and the next checkpoint names their segments as the last one did);
  // Hold opens listed collections' segments from the files the manifest names.
  bool RowsChangedSinceCheckpoint(const std::string& name) const { return state_.RowsChangedSinceCheckpoint(name); }
  void Release(const std::vector<std::string>& names);
  void Hold(const std::vector<std::string>& names);
  // Loads the state at version target from the kept manifests and logs; Error(400) naming the
  // oldest readable version when its files are gone (or it is newer than the newest), the state
  // served before left in place.
  void LoadAt(uint64_t target);
  // Whether LoadAt(target) could succeed in dir, judged from file names and the log's versions
  // without loading anything; Error(400) as LoadAt's when not.
  static void CheckReadable(const std::string& dir, uint64_t target);
  // GET /versions for an instance serving version served (pinned: the version it was started or
  // moved to). Lists the directory.
  std::string Versions(uint64_t served, std::optional<uint64_t> pinned) const;

  uint64_t version() const { return version_; }
  // Throws Error (400/404) when op cannot apply; changes nothing.
  void Validate(const Op& op) const { state_.Validate(op); }
  void PrepareApply(const Op& op) { state_.PrepareApply(op); }
  // Logs op and applies it at the next version (a large one synced while it applies, a small one
  // not yet durable); returns rows changed.
  uint64_t LogAndApply(const Op& op);
  // Makes every logged op durable.
  void Sync();
  // The latest version as a snapshot.
  SnapshotPtr Current() { return state_.Freeze(version_, &pool_); }
  // See StoreState::vector_bytes: what the max_vector_bytes guard counts.
  uint64_t vector_bytes() const { return state_.vector_bytes(); }
  std::string ResolveAlias(const std::string& name) const { return state_.ResolveAlias(name); }
  // The next Current() serves them for that segment (see StoreState::AttachVectorIndexes).
  bool AttachVectorIndexes(const std::string& collection, uint64_t segment_id, VectorIndexPtr first_pass, VectorIndexPtr ann) {
    return state_.AttachVectorIndexes(collection, segment_id, std::move(first_pass), std::move(ann));
  }
  const std::string& dir() const { return dir_; }

  // What a copy of this store needs (cluster mode ships it to object storage), as of now: call it
  // where no write, checkpoint or compaction switch runs (under the writer mutex).
  struct ReplicationPoint {
    // Manifests this process wrote. The log's bytes below log_bytes never change until it moves:
    // a checkpoint (the only thing that empties the log) writes a manifest first.
    uint64_t generation;
    std::string manifest;  // MANIFEST's text
    // HEADER and the segment files the manifest names, as they exist now; with history on, every
    // segment and history file (what past versions need).
    std::vector<std::string> files;
    // Every other name the manifest's segments may have: not in the directory (a collection this
    // writer does not hold, one dropped since, a derived file not built). The copy keeps those it
    // shipped before.
    std::vector<std::string> cold;
    uint64_t log_bytes;  // wal.log's length
  };
  ReplicationPoint Replication() const;

  // What a backup copies of the state this instance serves (a writer's latest, a reader's loaded
  // one): the manifest's text, HEADER and the files it names (a writer keeping history: every
  // segment and history file), the log's bytes that state read, and whether MANIFEST on disk is
  // still this one. While it is, the files stay and the log's first log_bytes do not change (a
  // checkpoint writes a manifest before it empties the log): a copy made meanwhile is of this state.
  struct BackupPoint {
    uint64_t commit_version;
    std::string manifest;
    std::vector<std::string> files;
    uint64_t log_bytes;
    bool current;
  };
  BackupPoint Backup() const;
  // A writer's backup copies files a checkpoint or compaction would remove meanwhile: until the
  // next call, no cleanup removes these (the first one after removes what is unnamed by then).
  void KeepForBackup(std::vector<std::string> files) { kept_for_backup_ = std::move(files); }

  // Whether memory segments or the log have grown enough to checkpoint; seal_rows, when not 0, is
  // also enough rows in one memory segment (the store's seal bound).
  bool CheckpointDue(uint32_t seal_rows) const;
  uint32_t largest_memory_segment() const { return state_.largest_memory_segment(); }
  void Checkpoint();

  // Compaction: an id for its output, whose files no cleanup removes until Install or Abandon.
  uint64_t BeginCompaction();
  // The switch (see StoreState::InstallCompaction), made durable by a new MANIFEST. False when the
  // inputs are gone; the output's files are then removed.
  bool InstallCompaction(const CompactionJob& job, const CompactedSegment& out);
  // Removes what an abandoned compaction wrote.
  void AbandonCompaction(uint64_t output_id);
  // The writer at open: removes files a crash left behind (an unfinished compaction's output,
  // deletion bitmaps of an older manifest, temporary files).
  void RemoveOrphans() { RemoveUnnamedFiles(manifest_); }
  // Whether a compaction replaced the segment (its files are removed, or about to be). Any thread:
  // a file written for the segment after this says true must be removed by its writer.
  bool Retired(uint64_t segment_id) const {
    std::lock_guard<std::mutex> lock(retired_mu_);
    return retired_.count(segment_id) > 0;
  }

 private:
  void LoadAtOnce(uint64_t target);
  // Loads the manifest on disk and the log after it into a fresh state (see Load's retries), never
  // one behind version at_least (a refresh passes the version it serves).
  void Load(uint64_t at_least = 0);
  // The state manifest (none: the empty store) and logs describe, up to version until, replaces
  // the current one once check (when given) accepts the version reached; nothing changes when
  // this throws.
  void LoadFrom(const std::optional<Manifest>& manifest, const std::vector<std::string>& logs, uint64_t until,
                const std::function<void(uint64_t)>& check = nullptr);
  // Sealed segments of the manifest to open, each with its derived parts from their files (a part
  // missing, damaged, of an older format or of another declaration is rebuilt, and rewritten by
  // the writer process only: a reader never writes). OpenSealed opens them all in parallel.
  struct SealedToOpen {
    std::string collection;
    const CollectionSchema* schema;
    const ManifestSegment* meta;
    SegmentPtr segment = nullptr;
    SegmentIndexesPtr indexes = nullptr;
  };
  void OpenSealed(std::vector<SealedToOpen>& sealed);
  // Applies log's records after version (and up to until) onto state from byte offset from;
  // returns the offset reached. Error(500) when the log does not continue version.
  uint64_t ReplayLog(StoreState& state, uint64_t& version, const std::string& log, uint64_t from, uint64_t until);
  // Writes m as MANIFEST; with history on, the one it replaces is kept.
  void ReplaceManifest(Manifest m);
  // Writes a sealed copy of every memory segment's rows and swaps it in.
  void SealMemorySegments(const Snapshot& snap);
  // Removes segment files the manifest does not name (dropped collections, old deletion bitmaps),
  // sparing a running compaction's output.
  void RemoveUnnamedFiles(const Manifest& manifest);

  std::string dir_;
  uint32_t dim_;
  bool mmap_;
  bool logging_;
  uint64_t history_versions_;
  ThreadPool& pool_;
  StoreState state_;
  Wal wal_;
  std::unique_ptr<LogPipeline> log_;  // a writer's, once the log is open
  uint64_t version_ = 0;
  Manifest manifest_;             // the one on disk
  std::string manifest_text_;     // a reader's: the text of the manifest it loaded ("" when none)
  uint64_t wal_offset_ = 0;       // a reader's place in the log
  uint64_t next_sequence_ = 0;    // of the next kept manifest
  uint64_t manifest_writes_ = 0;  // ReplicationPoint::generation
  uint64_t compacting_ = 0;       // a running compaction's output segment id, 0 when none
  mutable std::mutex retired_mu_;
  std::set<uint64_t> retired_;  // inputs of installed compactions, marked before their files go
  std::optional<std::set<std::string>> resident_;
  std::vector<std::string> kept_for_backup_;
};

}  // namespace tessera
