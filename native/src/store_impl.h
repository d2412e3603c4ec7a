// StoreImpl: the store behind the tessera::Store interface. Its state, the threads it runs on and
// the lock discipline, which clang checks (-Wthread-safety, test/native/thread_safety.test.ts):
// - writer_mu_ serializes every change of the version set: the group-commit leader, checkpoints,
//   index attachments, compaction switches, refresh, pin and close. Taken before any other.
// - compaction_mu_ lets one compaction run at a time (the background one or POST /compact's);
//   it is taken before writer_mu_, which a compaction takes only around its pick and its switch.
// - snap_mu_ and poison_mu_ guard one member each and are held for a copy only.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "background_scheduler.h"
#include "group_commit.h"
#include "tessera/store.h"
#include "util/mutex.h"
#include "util/quiet_timer.h"

namespace tessera {

// Indexing by itself. Every query scans a collection's memory segment exactly, and a sealed segment
// of kMinAnnRows or more gets an index. An HNSW walk at the default ef_search computes a few
// thousand distances (ef 64 x m 16 neighbours, most already visited, over a few hops per level), an
// exact scan one per row: a memory segment seals at kSealRows, where its scan costs about a walk
// whatever the dimension. Compaction's levels merge the small segments this makes.
constexpr uint32_t kSealRows = 4096;
// A memory segment that stops growing with at least kMinAnnRows rows seals this long after the last
// write, so its rows reach an index without a /flush.
constexpr std::chrono::milliseconds kQuietSeal{1000};

enum class CompactionScope;
struct DeleteRequest;
class SealedIndexSaver;
class Segment;
struct Snapshot;
class ThreadPool;
class VersionSet;
struct VectorIndexConfig;
class WriterLock;

class StoreImpl final : public Store {
 public:
  explicit StoreImpl(const StoreOptions& options);
  ~StoreImpl() override;
  // Store::Open's work once Check passed.
  static std::unique_ptr<StoreImpl> Open(const StoreOptions& options, const IndexConfig& index);

  std::string Collections() override;
  std::string CreateCollection(const std::string& name) override;
  std::string DropCollection(const std::string& name) override;
  std::string GetMeta(const std::string& name) override;
  std::string PutMeta(const std::string& name, std::string_view body) override;
  std::string SetVectorNames(const std::string& name, std::string_view body) override;
  std::string SetFilterIndex(const std::string& name, std::string_view body) override;
  std::string SetFtsSchema(const std::string& name, std::string_view body) override;
  std::string Aliases() override;
  std::string PutAlias(const std::string& name, std::string_view body) override;
  std::string DropAlias(const std::string& name) override;
  std::string Upsert(const std::string& name, std::string_view body) override;
  std::string UpsertStamped(const std::string& name, std::string_view body) override;
  std::string Reinforce(const std::string& name, std::string_view body) override;
  std::string Delete(const std::string& name, std::string_view body) override;
  std::string Get(const std::string& name, std::string_view body) override;
  std::unique_ptr<RecordsCursor> OpenRecords(const std::string& name) override;
  std::unique_ptr<PreparedRead> Prepare(ReadRoute route, std::string_view body, const std::vector<float>* query,
                                        InlineBound bound) override;
  std::unique_ptr<RerankWindow> Rerank(ReadRoute route, std::string_view body, const CancelToken& cancel) override;
  void Submit(std::function<void()> job) override;
  void SubmitBlocking(std::function<void()> job) override;
  std::string Stats() override;
  std::string Flush() override TS_EXCLUDES(writer_mu_);
  std::string Compact(std::string_view body) override TS_EXCLUDES(writer_mu_, compaction_mu_);
  std::string Refresh() override TS_EXCLUDES(writer_mu_);
  std::string SetResident(std::optional<std::vector<std::string>> names) override TS_EXCLUDES(writer_mu_);
  std::string Hold(std::vector<std::string> names) override TS_EXCLUDES(writer_mu_);
  std::string Release(std::vector<std::string> names) override TS_EXCLUDES(writer_mu_);
  std::string CollectionReads() override;
  std::string Versions() override;
  std::string Replication() override TS_EXCLUDES(writer_mu_);
  std::string BackupPoint() override TS_EXCLUDES(writer_mu_);
  std::string BeginBackup() override;
  std::string EndBackup() override;
  std::string Pin(uint64_t version) override TS_EXCLUDES(writer_mu_);
  std::string SweepExpired() override;
  std::string WaitForIndexes() override;
  std::string WaitForIndexBuilds() override;
  void Close() override TS_EXCLUDES(writer_mu_);

  Role role() const override { return role_; }
  const std::string& writer_holder() const override { return writer_holder_; }
  uint32_t dimension() const override { return dim_; }
  Metric metric() const override { return metric_; }
  size_t query_threads() const override;
  bool mmap() const override { return options_.mmap; }
  const std::optional<AnnConfig>& ann() const override { return ann_; }
  const std::optional<QuantizationConfig>& quantization() const override { return quantization_; }
  uint64_t commit_version() const override { return commit_version_.load(std::memory_order_acquire); }
  std::optional<uint64_t> pinned() const override {
    uint64_t v = pinned_.load(std::memory_order_acquire);
    return v == kNotPinned ? std::nullopt : std::optional<uint64_t>(v);
  }
  const FootprintCounters& footprint() const override { return footprint_; }
  std::string poisoned() const override TS_EXCLUDES(poison_mu_);
  void CheckWritable() const override;
  void InjectWriteFault(WriteFault fault) override { inject_fault_.store(fault); }
  void InjectCompactionFault(CompactionFault where) override { compaction_fault_.store(where); }

 private:
  // Takes the writer lock (or becomes a Reader), reads or creates the header, resolves the index
  // configuration against it and, as the writer, records that configuration there.
  void OpenDirectory();
  std::shared_ptr<const Snapshot> Current() const TS_EXCLUDES(snap_mu_);
  void Publish(std::shared_ptr<const Snapshot> snap) TS_EXCLUDES(snap_mu_);
  // StoreOptions::mapped_vector_bytes: whether rescores read the sealed rows of snap (of
  // sealed_vector_bytes in all) from files.
  void ReadRowsFromFilesPastBound(const Snapshot& snap, uint64_t sealed_vector_bytes);
  // params bound to snap and to answer, the function that runs them.
  template <typename Params, typename Answer>
  std::unique_ptr<PreparedRead> PrepareQuery(std::shared_ptr<const Snapshot> snap, Params params, Answer answer, bool runs_inline = false,
                                             HitList (*hits)(const QueryContext&, const Params&) = nullptr);
  // What a read runs with besides its snapshot: the store's settings, threads and counters.
  QueryEnvironment Environment();
  // Commits the write through the group-commit leader; returns its result or rethrows its error.
  uint64_t Write(PendingWrite&& write) TS_EXCLUDES(writer_mu_);
  void CommitGroup(std::deque<PendingWrite*>& group) TS_REQUIRES(writer_mu_);
  // Checkpoints; a failure poisons the store.
  void CheckpointOrPoison() TS_REQUIRES(writer_mu_);
  void Poison(const std::string& why) TS_EXCLUDES(poison_mu_);
  // Gives each sealed segment that deserves one its approximate index: opens the saved file, or
  // (writer only) queues a background build; and (writer only) has the derived files sealed
  // segments lack saved in the background.
  // A writer's build waits for the background compaction when that is about to rewrite the segment
  // anyway (unless merges_failing_): an import's thousands of small segments are merged before any
  // graph is built, and the merged segment's graph is built once.
  void IndexSealedSegments() TS_REQUIRES(writer_mu_);
  static bool Indexed(const SegmentRef& ref);
  bool AboutToBeRewrittenNow(const std::string& collection, uint64_t segment_id) TS_REQUIRES(writer_mu_);
  void BuildSegmentIndexes(const std::string& collection, const std::shared_ptr<Segment>& segment) TS_EXCLUDES(writer_mu_);
  // Whether sealed segments get vector indexes: an ANN or quantization kind, and vectors.
  bool IndexesVectors() const;
  // The seal bound in rows of a memory segment: kSealRows while IndexesVectors, else 0 (sealing
  // early would only add segments).
  uint32_t SealRows() const;
  // After a write: arms the quiet-period seal when a memory segment is big enough to index.
  void NoteWriteForQuietSeal() TS_REQUIRES(writer_mu_);
  // The quiet timer's action: checkpoints, so the memory segments that stopped growing seal and
  // get their indexes without a /flush.
  void SealQuietSegments() TS_EXCLUDES(writer_mu_);
  // Queues a background compaction when the policy finds work and none is queued.
  void ScheduleCompaction() TS_REQUIRES(writer_mu_);
  // Runs the next compaction scope finds; false when there was none, it was cancelled, or it failed
  // inside the switch (which poisons the store). A failure before the switch abandons it and
  // rethrows.
  bool CompactOnce(CompactionScope scope) TS_REQUIRES(compaction_mu_) TS_EXCLUDES(writer_mu_);
  // Whether a merged segment goes without its vector index until the next rewrite, which the
  // policy already has due: only when every input went without one (queries scanned them anyway).
  bool BuildWaitsForNextRewrite(const CompactionJob& job, const CompactedSegment& out);
  // Whether a test armed this fault; disarms it.
  bool TakeCompactionFault(CompactionFault where);
  // An in-memory store compacts under the writer mutex: there is nothing to write, so it is short.
  void CompactInMemory() TS_EXCLUDES(writer_mu_);
  uint64_t DeleteExpired();
  // Deletes the rows req names or matches in collection name; returns how many.
  uint64_t DeleteRows(const std::string& name, DeleteRequest&& req);
  VectorIndexConfig VectorIndexes() const;
  void StopIndexBuilds();
  // Error(400) unless this is a writer holding some collections (Hold, Release).
  void CheckHolding() const;
  // Whether fault was injected; clears it.
  bool TakeFault(WriteFault fault) { return inject_fault_.compare_exchange_strong(fault, WriteFault::kNone); }

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
  // What an index build fans out over: as many threads as pool_, at background priority, so a
  // build has every core while no query wants one and yields them to queries that do.
  std::shared_ptr<ThreadPool> build_pool_;
  std::unique_ptr<VersionSet> versions_;
  std::atomic<bool> closed_{false};
  FootprintCounters footprint_;
  // Index builds and compactions, in turn on one thread that fans each out over build_pool_.
  BackgroundScheduler background_{footprint_.index_builds_pending};
  Mutex compaction_mu_;
  std::atomic<CompactionFault> compaction_fault_{CompactionFault::kNone};
  std::unique_ptr<SealedIndexSaver> saver_;  // the writer's; null otherwise
  QuietTimer quiet_seal_{kQuietSeal, [this] { SealQuietSegments(); }};

  mutable Mutex snap_mu_;
  std::shared_ptr<const Snapshot> snap_ TS_GUARDED_BY(snap_mu_);
  std::atomic<uint64_t> commit_version_{0};
  static constexpr uint64_t kNotPinned = UINT64_MAX;
  std::atomic<uint64_t> pinned_{kNotPinned};
  std::atomic<bool> backing_up_{false};  // BeginBackup's turn

  Mutex writer_mu_;
  // The last background compaction failed: builds stop waiting for merges until one succeeds
  // (a compaction that keeps failing, a full disk say, must not leave segments unindexed).
  bool merges_failing_ TS_GUARDED_BY(writer_mu_) = false;
  GroupCommit group_commit_{writer_mu_, [this](std::deque<PendingWrite*>& group) {
                              writer_mu_.AssertHeld();
                              CommitGroup(group);
                            }};

  mutable Mutex poison_mu_;
  std::string poisoned_ TS_GUARDED_BY(poison_mu_);
  std::atomic<WriteFault> inject_fault_{WriteFault::kNone};
};

}  // namespace tessera
