// The store: a directory (or nothing, in memory) holding collections of records. This is the
// core's whole surface to the addon: every route is one method taking and returning JSON bytes;
// parsing and validation happen inside, never in the binding. An interface: its implementation
// (src/store_impl.h) holds the state, the locks and their discipline.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/cancel.h"
#include "tessera/footprint.h"
#include "tessera/options.h"
#include "tessera/prepared_read.h"
#include "tessera/records_cursor.h"
#include "tessera/rerank_window.h"

namespace tessera {

// Test hooks: the next write fails inside the write lock (the store is poisoned), or runs out of
// memory while it is prepared (only that batch fails) or applied (poisoned, answered 507).
enum class WriteFault { kNone, kFail, kOutOfMemoryValidating, kOutOfMemoryApplying };

// Where a test makes the next compaction fail (Store::InjectCompactionFault), or kHeld: none is
// started until the store is reopened (a test's store left with merges due).
enum class CompactionFault { kNone, kBeforeSwitch, kAtSwitch, kHeld };

class Store {
 public:
  // Throws Error(400) on a header mismatch (naming both values) and Error(500) on IO faults.
  static std::unique_ptr<Store> Open(const StoreOptions& options);
  // What Open would refuse that is knowable without the writer lock, checked without creating or
  // writing anything: Error(400) for a bad directory (a file, no permission) or settings the header
  // refuses, Error(500) for a corrupt header or manifest, Error(503) for a read-only open of no
  // store; else the index configuration the options resolve to. Front ends call it before they
  // start, so a bad setting or directory never half-starts (what remains for Open is slow: replaying
  // the log, reading segments).
  static IndexConfig Check(const StoreOptions& options);
  // A store dropped without Close() loses nothing: every acknowledged batch is in the log.
  virtual ~Store() = default;

  virtual std::string Collections() = 0;
  virtual std::string CreateCollection(const std::string& name) = 0;
  virtual std::string DropCollection(const std::string& name) = 0;
  virtual std::string GetMeta(const std::string& name) = 0;
  virtual std::string PutMeta(const std::string& name, std::string_view body) = 0;
  virtual std::string SetVectorNames(const std::string& name, std::string_view body) = 0;
  virtual std::string SetFilterIndex(const std::string& name, std::string_view body) = 0;
  virtual std::string SetFtsSchema(const std::string& name, std::string_view body) = 0;
  virtual std::string Aliases() = 0;
  virtual std::string PutAlias(const std::string& name, std::string_view body) = 0;
  virtual std::string DropAlias(const std::string& name) = 0;
  virtual std::string Upsert(const std::string& name, std::string_view body) = 0;
  // An upsert that keeps svc.* attributes: the store's own memory writes (remember), never a
  // caller's body, which could forge them.
  virtual std::string UpsertStamped(const std::string& name, std::string_view body) = 0;
  // A reinforced recall's stamps on the live records among body's ids: {"ids": [...], "now":
  // epoch ms, "extend_ttl_ms"?}. Answers {"reinforced": records written}.
  virtual std::string Reinforce(const std::string& name, std::string_view body) = 0;
  virtual std::string Delete(const std::string& name, std::string_view body) = 0;
  // The live records of body's ids ({"ids": [...]}): [{"id", "attrs"}] in the order asked, each id
  // once, ids not stored left out, never a vector. Error(404) for a missing collection.
  virtual std::string Get(const std::string& name, std::string_view body) = 0;
  virtual std::unique_ptr<RecordsCursor> OpenRecords(const std::string& name) = 0;
  // Parses a read route's body against the current snapshot (Error(400) for a bad body; nothing is
  // scanned yet). query: the search vector passed as floats beside a body that leaves it out
  // (ReadRoute::kSearch only). Run the result where it says (runs_inline, as bound allows) or
  // through Submit.
  virtual std::unique_ptr<PreparedRead> Prepare(ReadRoute route, std::string_view body, const std::vector<float>* query = nullptr,
                                                InlineBound bound = InlineBound::kHandoff) = 0;
  // Phase one of a reranked read of route (kSearch, kText or kHybrid; body with `rerank`): ranks
  // the candidate window and reads their texts, here on the caller's thread. Error(400) for a bad
  // body or one without rerank.
  virtual std::unique_ptr<RerankWindow> Rerank(ReadRoute route, std::string_view body, const CancelToken& cancel) = 0;
  // Runs job on the query threads, behind the requests already queued. job must not throw.
  virtual void Submit(std::function<void()> job) = 0;
  // Runs job on the store's blocking threads: the calls that may wait on the disk or on background
  // work (writes and their group commit, flush, compaction, metadata), kept off the query threads
  // so a reader never waits behind an fsync. job must not throw.
  virtual void SubmitBlocking(std::function<void()> job) = 0;
  virtual std::string Stats() = 0;
  // Makes every acknowledged write part of sealed segment files and empties the log.
  virtual std::string Flush() = 0;
  // POST /compact: optionally deletes expired entries first, then seals memory segments and rewrites
  // every segment holding dead rows and every run of small ones, until none is left.
  virtual std::string Compact(std::string_view body) = 0;
  // POST /refresh: a Reader (or read-only store) adopts the newest committed state:
  // {"adopted": whether the version moved}. A writer or an in-memory store answers false.
  virtual std::string Refresh() = 0;
  // A lazy reader (StoreOptions::resident) holds these collections' rows from now on (nullopt:
  // every collection), loading the newest state on disk afresh: {"ok": true}. Error(400) on a
  // writer or a pinned reader.
  virtual std::string SetResident(std::optional<std::vector<std::string>> names) = 0;
  // A writer holding some collections (StoreOptions::resident): Hold opens the named listed
  // collections' segments from the files the manifest names (fetched by the caller), Release lets
  // the named resident ones go, first checkpointing when their rows changed since the last one,
  // so that the manifest names every row of theirs. {"ok": true}; Error(400) on any other store.
  virtual std::string Hold(std::vector<std::string> names) = 0;
  virtual std::string Release(std::vector<std::string> names) = 0;
  // The resident collections, each with when a read (or, on a writer, an upsert or delete) last
  // needed its rows, in us of a monotonic clock ({"name": us}; 0: not since the collection was
  // loaded): a cache holding some collections drops the ones used longest ago.
  virtual std::string CollectionReads() = 0;
  // GET /versions: commit_version, oldest_readable, pinned, readable (lists the directory).
  virtual std::string Versions() = 0;
  // Cluster mode's shipping point: {generation, manifest, files, cold, log_bytes} (VersionSet::
  // ReplicationPoint) of a writer, taken between writes.
  virtual std::string Replication() = 0;
  // What a backup copies of the state served now: {commit_version, manifest, files, log_bytes,
  // current} (VersionSet::BackupPoint); Error(400) in memory, Error(409) pinned to a past version.
  // A writer keeps the files named until EndBackup (or the next point): cleanup spares them.
  virtual std::string BackupPoint() = 0;
  // One backup of a store at a time, whichever JS thread asks: BeginBackup answers {"ok": true}
  // and holds the store's backup turn until EndBackup, or Error(409) while another holds it.
  virtual std::string BeginBackup() = 0;
  virtual std::string EndBackup() = 0;
  // Moves a read-only handle (a Reader) to past version, which it then serves pinned; Error(400)
  // naming the oldest readable version when it cannot, the prior state still served.
  virtual std::string Pin(uint64_t version) = 0;
  // Deletes every entry of every collection whose svc.expires_at has passed: {"deleted": count}.
  virtual std::string SweepExpired() = 0;
  // Blocks until no background work (an index build, a compaction, a save of derived files) is
  // queued or running.
  virtual std::string WaitForIndexes() = 0;
  // Blocks until the vector index builds queued or running now have ended (a compaction is waited
  // for only when one is queued behind it) and no derived-file save runs: what a backup waits for
  // to hold every index of its state.
  virtual std::string WaitForIndexBuilds() = 0;
  virtual void Close() = 0;

  virtual Role role() const = 0;
  virtual const std::string& writer_holder() const = 0;
  virtual uint32_t dimension() const = 0;
  virtual Metric metric() const = 0;
  virtual size_t query_threads() const = 0;
  virtual bool mmap() const = 0;
  // The index configuration this process runs with: what the opener asked for, else what the store
  // recorded, else the spec's defaults. nullopt: exact search / no quantized pass.
  virtual const std::optional<AnnConfig>& ann() const = 0;
  virtual const std::optional<QuantizationConfig>& quantization() const = 0;
  virtual uint64_t commit_version() const = 0;
  // The version a pinned instance serves; nullopt when not pinned.
  virtual std::optional<uint64_t> pinned() const = 0;
  virtual const FootprintCounters& footprint() const = 0;
  // Empty until an exception escapes while the write lock is held; then permanent.
  virtual std::string poisoned() const = 0;
  // Throws the Error every write would answer now: 503 poisoned or closed, 403 pinned or opened
  // read-only, 409 a Reader because another process holds the writer lock. A caller that does work
  // before its write (an embedding) asks first.
  virtual void CheckWritable() const = 0;
  virtual void InjectWriteFault(WriteFault fault) = 0;
  // Test hook: the next compaction throws before its switch (abandoned, the store serves on) or
  // inside it (the store is poisoned); or no background compaction starts from now on.
  virtual void InjectCompactionFault(CompactionFault where) = 0;
};

}  // namespace tessera
