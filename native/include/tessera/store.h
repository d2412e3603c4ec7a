// The store: a directory (or nothing, in memory) holding collections of records. This is the
// core's whole surface to the addon: every route is one method taking and returning JSON bytes;
// parsing and validation happen inside, never in the binding.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/cancel.h"
#include "tessera/options.h"
#include "tessera/prepared_read.h"
#include "tessera/records_cursor.h"

namespace tessera {

class BackgroundWorker;
enum class CompactionScope;
struct DeleteRequest;
class SealedIndexSaver;
class Segment;
class ThreadPool;
class VersionSet;
struct VectorIndexConfig;
class WriterLock;
struct PendingWrite;
struct Snapshot;

// Test hooks: the next write fails inside the write lock (the store is poisoned), or runs out of
// memory while it is prepared (only that batch fails) or applied (poisoned, answered 507).
enum class WriteFault { kNone, kFail, kOutOfMemoryValidating, kOutOfMemoryApplying };

// Row counts as of the last commit, segments whose vector indexes are queued or building, and the
// text, filter and id parts of sealed segments served from their saved files (mapped) or built in
// memory by this process (built), readable without any lock (for metrics).
struct FootprintCounters {
  std::atomic<uint64_t> rows{0}, dead_rows{0}, doc_count{0}, collections{0}, segments{0}, index_builds_pending{0};
  // Compactions installed since open, and the bytes they wrote.
  std::atomic<uint64_t> compactions{0}, compaction_bytes{0};
  std::atomic<uint64_t> derived_mapped{0}, derived_built{0};
  // Sealed segments whose attributes are read column by column (their column file opened).
  std::atomic<uint64_t> column_segments{0};
  // Reads run where they were prepared (cheap enough, see kInlineMaxBytes) and on the query threads.
  std::atomic<uint64_t> reads_inline{0}, reads_queued{0};
};

// Where a test makes the next compaction fail (Store::InjectCompactionFault).
enum class CompactionFault { kNone, kBeforeSwitch, kAtSwitch };

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
  ~Store();

  std::string Collections();
  std::string CreateCollection(const std::string& name);
  std::string DropCollection(const std::string& name);
  std::string GetMeta(const std::string& name);
  std::string PutMeta(const std::string& name, std::string_view body);
  std::string SetVectorNames(const std::string& name, std::string_view body);
  std::string SetFilterIndex(const std::string& name, std::string_view body);
  std::string SetFtsSchema(const std::string& name, std::string_view body);
  std::string Aliases();
  std::string PutAlias(const std::string& name, std::string_view body);
  std::string DropAlias(const std::string& name);
  std::string Upsert(const std::string& name, std::string_view body);
  // An upsert that keeps svc.* attributes: the store's own memory writes (remember), never a
  // caller's body, which could forge them.
  std::string UpsertStamped(const std::string& name, std::string_view body);
  // A reinforced recall's stamps on the live records among body's ids: {"ids": [...], "now":
  // epoch ms, "extend_ttl_ms"?}. Answers {"reinforced": records written}.
  std::string Reinforce(const std::string& name, std::string_view body);
  std::string Delete(const std::string& name, std::string_view body);
  // The live records of body's ids ({"ids": [...]}): [{"id", "attrs"}] in the order asked, each id
  // once, ids not stored left out, never a vector. Error(404) for a missing collection.
  std::string Get(const std::string& name, std::string_view body);
  std::unique_ptr<RecordsCursor> OpenRecords(const std::string& name);
  // Parses a read route's body against the current snapshot (Error(400) for a bad body; nothing is
  // scanned yet). query: the search vector passed as floats beside a body that leaves it out
  // (ReadRoute::kSearch only). Run the result where it says (runs_inline) or through Submit;
  // may_run_inline false: it will run on a query thread whatever it costs.
  std::unique_ptr<PreparedRead> Prepare(ReadRoute route, std::string_view body, const std::vector<float>* query = nullptr,
                                        bool may_run_inline = true);
  // Runs job on the query threads, behind the requests already queued. job must not throw.
  void Submit(std::function<void()> job);
  // Runs job on the store's blocking threads: the calls that may wait on the disk or on background
  // work (writes and their group commit, flush, compaction, metadata), kept off the query threads
  // so a reader never waits behind an fsync. job must not throw.
  void SubmitBlocking(std::function<void()> job);
  std::string Stats();
  // Makes every acknowledged write part of sealed segment files and empties the log.
  std::string Flush();
  // POST /compact: optionally deletes expired entries first, then seals memory segments and rewrites
  // every segment holding dead rows and every run of small ones, until none is left.
  std::string Compact(std::string_view body);
  // POST /refresh: a Reader (or read-only store) adopts the newest committed state:
  // {"adopted": whether the version moved}. A writer or an in-memory store answers false.
  std::string Refresh();
  // A lazy reader (StoreOptions::resident) holds these collections' rows from now on (nullopt:
  // every collection), loading the newest state on disk afresh: {"ok": true}. Error(400) on a
  // writer or a pinned reader.
  std::string SetResident(std::optional<std::vector<std::string>> names);
  // A writer holding some collections (StoreOptions::resident): Hold opens the named listed
  // collections' segments from the files the manifest names (fetched by the caller), Release lets
  // the named resident ones go, first checkpointing when their rows changed since the last one,
  // so that the manifest names every row of theirs. {"ok": true}; Error(400) on any other store.
  std::string Hold(std::vector<std::string> names);
  std::string Release(std::vector<std::string> names);
  // The resident collections, each with when a read (or, on a writer, an upsert or delete) last
  // needed its rows, in us of a monotonic clock ({"name": us}; 0: not since the collection was
  // loaded): a cache holding some collections drops the ones used longest ago.
  std::string CollectionReads();
  // GET /versions: commit_version, oldest_readable, pinned, readable (lists the directory).
  std::string Versions();
  // Cluster mode's shipping point: {generation, manifest, files, cold, log_bytes} (VersionSet::
  // ReplicationPoint) of a writer, taken between writes.
  std::string Replication();
  // Moves a read-only handle (a Reader) to past version, which it then serves pinned; Error(400)
  // naming the oldest readable version when it cannot, the prior state still served.
  std::string Pin(uint64_t version);
  // Deletes every entry of every collection whose svc.expires_at has passed: {"deleted": count}.
  std::string SweepExpired();
  // Blocks until no background work (an index build, a compaction, a save of derived files) is
  // queued or running.
  std::string WaitForIndexes();
  void Close();

  Role role() const { return role_; }
  const std::string& writer_holder() const { return writer_holder_; }
  uint32_t dimension() const { return dim_; }
  Metric metric() const { return metric_; }
  size_t query_threads() const;
  bool mmap() const { return options_.mmap; }
  // The index configuration this process runs with: what the opener asked for, else what the store
  // recorded, else the spec's defaults. nullopt: exact search / no quantized pass.
  const std::optional<AnnConfig>& ann() const { return ann_; }
  const std::optional<QuantizationConfig>& quantization() const { return quantization_; }
  uint64_t commit_version() const { return commit_version_.load(std::memory_order_acquire); }
  // The version a pinned instance serves; nullopt when not pinned.
  std::optional<uint64_t> pinned() const {
    uint64_t v = pinned_.load(std::memory_order_acquire);
    return v == kNotPinned ? std::nullopt : std::optional<uint64_t>(v);
  }
  const FootprintCounters& footprint() const { return footprint_; }
  // Empty until an exception escapes while the write lock is held; then permanent.
  std::string poisoned() const;
  // Throws the Error every write would answer now: 503 poisoned or closed, 403 pinned or opened
  // read-only, 409 a Reader because another process holds the writer lock. A caller that does work
  // before its write (an embedding) asks first.
  void CheckWritable() const;
  void InjectWriteFault(WriteFault fault) { inject_fault_.store(fault); }
  // Test hook: the next compaction throws before its switch (abandoned, the store serves on) or
  // inside it (the store is poisoned).
  void InjectCompactionFault(CompactionFault where) { compaction_fault_.store(where); }

 private:
  explicit Store(const StoreOptions& options);
  // Takes the writer lock (or becomes a Reader), reads or creates the header, resolves the index
  // configuration against it and, as the writer, records that configuration there.
  void OpenDirectory();
  std::shared_ptr<const Snapshot> Current() const;
  void Publish(std::shared_ptr<const Snapshot> snap);
  // params bound to snap and to answer, the function that runs them.
  template <typename Params, typename Answer>
  std::unique_ptr<PreparedRead> PrepareQuery(std::shared_ptr<const Snapshot> snap, Params params, Answer answer, bool runs_inline = false);
  // Commits the write through the group-commit leader; returns its result or rethrows its error.
  uint64_t Write(PendingWrite&& write);
  void CommitGroup(std::deque<PendingWrite*>& group);
  // Checkpoints under the writer mutex; a failure poisons the store.
  void CheckpointOrPoison();
  void Poison(const std::string& why);
  // Gives each sealed segment that deserves one its approximate index: opens the saved file, or
  // (writer only) queues a background build; and (writer only) has the derived files sealed
  // segments lack saved in the background. Called with the writer mutex held, or while opening.
  void IndexSealedSegments();
  void BuildSegmentIndexes(const std::string& collection, const std::shared_ptr<Segment>& segment);
  // Queues a background compaction when the policy finds work and none is queued. Writer mutex held.
  void ScheduleCompaction();
  // Runs the next compaction scope finds; false when there was none, it was cancelled, or it failed
  // inside the switch (which poisons the store). A failure before the switch abandons it and
  // rethrows. The caller holds compaction_mu_.
  bool CompactOnce(CompactionScope scope);
  // Whether a test armed this fault; disarms it.
  bool TakeCompactionFault(CompactionFault where);
  // An in-memory store compacts under the writer mutex: there is nothing to write, so it is short.
  void CompactInMemory();
  uint64_t DeleteExpired();
  // Deletes the rows req names or matches in collection name; returns how many.
  uint64_t DeleteRows(const std::string& name, DeleteRequest&& req);
  VectorIndexConfig VectorIndexes() const;
  void StopIndexBuilds();
  // Error(400) unless this is a writer holding some collections (Hold, Release).
  void CheckHolding() const;

  StoreOptions options_;
  uint32_t dim_ = 0;
  Metric metric_ = Metric::kCosine;
  Role role_ = Role::kWriter;
  std::optional<AnnConfig> ann_;
  std::optional<QuantizationConfig> quantization_;
  std::string writer_holder_;
  std::unique_ptr<WriterLock> lock_;
  std::shared_ptr<ThreadPool> pool_;           // shared with the process's other stores of its size
  std::unique_ptr<ThreadPool> inline_pool_;    // no threads: the pool a read run inline splits over
  std::shared_ptr<ThreadPool> blocking_pool_;  // SubmitBlocking's; shared like pool_
  std::unique_ptr<VersionSet> versions_;
  std::atomic<bool> closed_{false};
  // Index builds and compactions run in turn on one thread, which fans each out over the query pool.
  std::unique_ptr<BackgroundWorker> index_builds_;
  CancelToken stop_index_builds_;
  std::mutex compaction_mu_;        // one compaction at a time: the background one or POST /compact's
  bool compaction_queued_ = false;  // writer mutex
  std::atomic<CompactionFault> compaction_fault_{CompactionFault::kNone};
  std::set<uint64_t> building_;              // segment ids queued or building; writer mutex
  std::unique_ptr<SealedIndexSaver> saver_;  // the writer's; null otherwise

  mutable std::mutex snap_mu_;
  std::shared_ptr<const Snapshot> snap_;
  std::atomic<uint64_t> commit_version_{0};
  static constexpr uint64_t kNotPinned = UINT64_MAX;
  std::atomic<uint64_t> pinned_{kNotPinned};
  FootprintCounters footprint_;

  std::mutex writer_mu_;  // held by the group-commit leader, checkpoints and close
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<PendingWrite*> queue_;
  bool leader_active_ = false;

  mutable std::mutex poison_mu_;
  std::string poisoned_;
  std::atomic<WriteFault> inject_fault_{WriteFault::kNone};
  // Whether fault was injected; clears it.
  bool TakeFault(WriteFault fault) { return inject_fault_.compare_exchange_strong(fault, WriteFault::kNone); }
};

}  // namespace tessera
