#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "catalog/compaction.h"
#include "catalog/manifest.h"
#include "catalog/ops.h"
#include "catalog/sealed_index_saver.h"
#include "catalog/vector_budget.h"
#include "catalog/version_set.h"
#include "index/ann_index.h"
#include "query/inline_estimate.h"
#include "query/live_rows.h"
#include "query/metadata_reads.h"
#include "query/parse/metadata_parser.h"
#include "query/parse/schema_parser.h"
#include "query/parse/search_parser.h"
#include "query/parse/text_parser.h"
#include "query/parse/write_parser.h"
#include "query/prepared_query.h"
#include "query/records_cursor.h"
#include "query/reinforce.h"
#include "query/rerank.h"
#include "query/scan.h"
#include "query/stats.h"
#include "query/suggest.h"
#include "query/text_search.h"
#include "query/vector_search.h"
#include "storage/directory_check.h"
#include "storage/file_names.h"
#include "storage/store_header.h"
#include "storage/writer_lock.h"
#include "store_impl.h"
#include "tessera/error.h"
#include "util/crash_point.h"
#include "util/file_util.h"
#include "util/json_writer.h"

namespace tessera {

namespace {

// Writes, flushes and the other blocking calls run this many at a time (libuv's default pool size,
// where they ran before): concurrent writes still meet in one group commit.
constexpr size_t kBlockingThreads = 4;

// {"<key>": value}
template <typename T>
std::string OneMember(const char* key, const T& value) {
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Member(key, value);
  });
}

// Data routes accept an alias; the leader resolves it so a concurrent repoint cannot split a
// write between the old and the new target.
template <typename OpT>
std::function<void(Op&)> ResolveAliasIn(VersionSet& versions, std::string OpT::*field) {
  return [&versions, field](Op& op) {
    std::string& name = std::get<OpT>(op).*field;
    name = versions.ResolveAlias(name);
  };
}

// The opener's options against the store's header (nullopt: a new or in-memory store): Error(400)
// for a dimension or metric the store does not have, SettingError for index settings that do not
// resolve; else the index configuration to run with.
IndexConfig Settle(const StoreOptions& o, const std::optional<StoreHeader>& header) {
  if (header && o.dimension && *o.dimension != header->dimension)
    throw BadRequest("dimension mismatch: the store at " + o.path + " has dimension " + std::to_string(header->dimension) +
                     ", but dimension " + std::to_string(*o.dimension) + " was requested");
  if (header && o.metric && *o.metric != header->metric)
    throw BadRequest(std::string("distance mismatch: the store at ") + o.path + " uses " + MetricName(header->metric) + ", but " +
                     MetricName(*o.metric) + " was requested");
  Metric metric = header ? header->metric : o.metric.value_or(Metric::kCosine);
  IndexBase base = header ? IndexBase{header->index} : NewStoreIndexBase(o.in_memory, o.dimension.value_or(0));
  return ResolveIndexConfig(o.index, base, metric);
}

// The header a new store gets from its opener's options.
StoreHeader NewHeader(const StoreOptions& o) {
  if (!o.dimension) throw BadRequest("a new store needs a dimension (0 for keyword-only)");
  return StoreHeader{kFormatVersion, *o.dimension, o.metric.value_or(Metric::kCosine), IndexSettings{}};
}

}  // namespace

StoreImpl::StoreImpl(const StoreOptions& options) : options_(options) {}

StoreImpl::~StoreImpl() { StopIndexBuilds(); }

IndexConfig Store::Check(const StoreOptions& options) {
  if (options.resident && (options.in_memory || options.at_version))
    throw BadRequest("resident (the collections a store holds of those listed) applies to a store on disk at its newest version");
  if (options.resident && !options.read_only && options.history_versions > 0)
    throw BadRequest("a writer holding some collections (resident) keeps no history: historyVersions needs every collection's files");
  if (options.in_memory) {
    if (!options.dimension) throw BadRequest("an in-memory store needs a dimension (0 for keyword-only)");
    return Settle(options, std::nullopt);
  }
  if (options.path.empty()) throw BadRequest("a store needs a path (or in-memory mode)");
  bool read_only = options.read_only || options.at_version;
  CheckStoreDirectory(options.path, !read_only);
  std::optional<StoreHeader> header = ReadHeader(options.path);
  if (!header && read_only)
    throw Error(Status::kUnavailable, "no store exists at " + options.path + " yet; a read-only open serves an existing store");
  if (!header) NewHeader(options);
  ReadManifest(options.path);  // corrupt: refused here rather than once the store has started opening
  if (options.at_version) VersionSet::CheckReadable(options.path, *options.at_version);
  return Settle(options, header);
}

std::unique_ptr<Store> Store::Open(const StoreOptions& options) {
  // Everything refusable is refused before anything is created: a refused open leaves no directory,
  // lock or header behind.
  IndexConfig index = Check(options);
  return StoreImpl::Open(options, index);
}

std::unique_ptr<StoreImpl> StoreImpl::Open(const StoreOptions& options, const IndexConfig& index) {
  auto s = std::make_unique<StoreImpl>(options);
  size_t threads = options.query_threads ? options.query_threads : std::max(1u, std::thread::hardware_concurrency());
  s->pool_ = ThreadPool::Shared(threads);
  s->inline_pool_ = std::make_unique<ThreadPool>(0);
  s->blocking_pool_ = ThreadPool::Shared(kBlockingThreads, false);
  s->build_pool_ = ThreadPool::Shared(threads, false, ThreadPriority::kBackground);
  if (options.in_memory) {
    s->role_ = Role::kInMemory;
    s->dim_ = *options.dimension;
    s->metric_ = options.metric.value_or(Metric::kCosine);
    s->ann_ = index.ann;
    s->quantization_ = index.quantization;
    s->versions_ = std::make_unique<VersionSet>("", s->dim_, options.mmap, false, 0, *s->pool_);
  } else {
    s->OpenDirectory();
    s->versions_ =
        std::make_unique<VersionSet>(options.path, s->dim_, options.mmap, s->role_ == Role::kWriter, options.history_versions, *s->pool_);
    if (options.resident) s->versions_->SetResident(std::set<std::string>(options.resident->begin(), options.resident->end()));
    if (options.at_version) {
      s->versions_->LoadAt(*options.at_version);
      s->pinned_ = *options.at_version;
    } else {
      s->versions_->Recover();
    }
    if (s->role_ == Role::kWriter) {
      s->versions_->RemoveOrphans();
      s->saver_ = std::make_unique<SealedIndexSaver>(
          options.path,
          [store = s.get()] {
            MutexLock lock(store->snap_mu_);
            return store->snap_;
          },
          [versions = s->versions_.get()](uint64_t id) { return versions->Retired(id); },
          // On the background thread, under the writer's lock (not the saver's thread: closing
          // holds that lock while it saves a last time; a sweep posted then is dropped, and the
          // next open sweeps).
          [store = s.get()] {
            store->background_.Post([store] {
              MutexLock writer(store->writer_mu_);
              if (!store->closed_) store->versions_->RemoveOrphans();
            });
          });
    }
  }
  s->Publish(s->versions_->Current());
  MutexLock writer(s->writer_mu_);
  s->IndexSealedSegments();
  s->ScheduleCompaction();
  return s;
}

void StoreImpl::OpenDirectory() {
  const std::string& dir = options_.path;
  MakeDirs(dir);
  role_ = Role::kReader;
  if (!options_.read_only && !options_.at_version) {
    if (std::optional<WriterLock> lock = WriterLock::TryAcquire(dir)) {
      lock_ = std::make_unique<WriterLock>(std::move(*lock));
      role_ = Role::kWriter;
    } else {
      writer_holder_ = WriterLock::Holder(dir);
    }
  }
  std::optional<StoreHeader> header = ReadHeader(dir);
  bool created = !header;
  if (created) {
    if (role_ != Role::kWriter) throw Error(Status::kUnavailable, "no store exists at " + dir + " yet");
    header = NewHeader(options_);
  }
  // Settled again now that the lock is held: another process may have created or re-recorded the
  // store since Check read its header. A new store starts from the defaults.
  IndexConfig index = Settle(options_, created ? std::nullopt : header);
  dim_ = header->dimension;
  metric_ = header->metric;
  ann_ = index.ann;
  quantization_ = index.quantization;
  // The writer records what it runs with, so a later start that leaves a knob unset keeps it.
  if (role_ == Role::kWriter && (created || index != ResolveIndexConfig(IndexSettings{}, {header->index}, metric_))) {
    header->index = RecordedSettings(index);
    WriteHeader(dir, *header);
  }
}

size_t StoreImpl::query_threads() const { return pool_->size(); }

SnapshotPtr StoreImpl::Current() const {
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  MutexLock lock(snap_mu_);
  return snap_;
}

void StoreImpl::Publish(SnapshotPtr snap) {
  uint64_t rows = 0, dead = 0, live = 0, mapped = 0, built = 0, columnar = 0, sealed_vector_bytes = 0;
  for (const auto& [name, c] : snap->collections) {
    rows += c->rows;
    dead += c->dead_rows;
    live += c->live_rows;
    for (const SegmentRef& ref : c->segments) {
      if (!ref.segment->sealed()) continue;
      SegmentIndexes::Origins o = ref.indexes->origins();
      mapped += o.mapped;
      built += o.built;
      columnar += ref.segment->columns() != nullptr ? 1 : 0;
      sealed_vector_bytes += ref.segment->vector_bytes();
    }
  }
  ReadRowsFromFilesPastBound(*snap, sealed_vector_bytes);
  footprint_.derived_mapped = mapped;
  footprint_.derived_built = built;
  footprint_.rows = rows;
  footprint_.column_segments = columnar;
  footprint_.dead_rows = dead;
  footprint_.doc_count = live;
  footprint_.collections = snap->collections.size();
  uint64_t segments = 0;
  for (const auto& [name, c] : snap->collections) segments += c->segments.size();
  footprint_.segments = segments;
  commit_version_.store(snap->version, std::memory_order_release);
  MutexLock lock(snap_mu_);
  snap_ = std::move(snap);
}

void StoreImpl::ReadRowsFromFilesPastBound(const Snapshot& snap, uint64_t sealed_vector_bytes) {
  bool from_files = options_.mmap && quantization_.has_value() && sealed_vector_bytes > options_.mapped_vector_bytes;
  for (const auto& [name, c] : snap.collections)
    for (const SegmentRef& ref : c->segments)
      if (ref.segment->sealed()) ref.segment->ReadRowsFromFile(from_files);
}

std::string StoreImpl::poisoned() const {
  MutexLock lock(poison_mu_);
  return poisoned_;
}

void StoreImpl::Poison(const std::string& why) {
  MutexLock lock(poison_mu_);
  if (poisoned_.empty()) poisoned_ = why;
}

void StoreImpl::CheckWritable() const {
  std::string poison = poisoned();
  if (!poison.empty()) throw Error(Status::kUnavailable, "the store is poisoned (" + poison + "); restart the process");
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ == Role::kReader) {
    if (std::optional<uint64_t> v = pinned())
      throw Error(Status::kForbidden, "this store is pinned at version " + std::to_string(*v) + "; writes are refused");
    if (options_.read_only) throw Error(Status::kForbidden, "this store was opened read-only; writes are refused");
    throw Error(Status::kConflict,
                "the store at " + options_.path + " is locked for writing by " + writer_holder_ + "; this process serves it as a Reader");
  }
}

uint64_t StoreImpl::Write(PendingWrite&& pw) {
  CheckWritable();
  return group_commit_.Commit(pw);
}

void StoreImpl::CommitGroup(std::deque<PendingWrite*>& group) {
  try {
    bool applied = false;
    for (PendingWrite* pw : group) {
      try {
        CheckWritable();  // the store may have been poisoned or closed while this batch queued
        if (pw->prepare) pw->prepare(pw->op);
        versions_->Validate(pw->op);
        versions_->PrepareApply(pw->op);
        if (options_.max_vector_bytes) CheckVectorBudget(pw->op, dim_, versions_->vector_bytes(), *options_.max_vector_bytes);
        if (TakeFault(WriteFault::kOutOfMemoryValidating)) throw std::bad_alloc();
      } catch (const Error&) {
        pw->error = std::current_exception();
        continue;
      } catch (const std::bad_alloc&) {
        // Nothing is logged or applied before this point: only this batch fails.
        pw->error = std::make_exception_ptr(Error(Status::kInsufficientStorage, "out of memory preparing the batch; nothing was written"));
        continue;
      }
      if (TakeFault(WriteFault::kFail)) throw std::runtime_error("injected write fault");
      if (TakeFault(WriteFault::kOutOfMemoryApplying)) throw std::bad_alloc();
      applied = true;
      pw->result = versions_->LogAndApply(pw->op);
    }
    if (!applied) return;
    versions_->Sync();
    Publish(versions_->Current());
    // Durable and visible but not yet acknowledged: a crash here leaves writes their callers never
    // heard succeed, which a retrying caller (an import's --resume) writes again.
    CrashPoint("write-published");
    if (versions_->CheckpointDue(SealRows())) {
      versions_->Checkpoint();
      Publish(versions_->Current());
      CrashPoint("seal-published");  // sealed and served, its graph not yet built or saved
      IndexSealedSegments();
    }
    NoteWriteForQuietSeal();
    ScheduleCompaction();
  } catch (const std::exception& e) {
    // Memory may hold part of a batch that the log does not: nothing more can be trusted. Running
    // out of memory is still the spec's 507 to the writers that met it.
    bool oom = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
    std::string why = oom ? "out of memory applying a write" : e.what();
    Poison(why);
    Status status = oom ? Status::kInsufficientStorage : Status::kUnavailable;
    for (PendingWrite* pw : group)
      if (!pw->error) pw->error = std::make_exception_ptr(Error(status, "write failed and the store is now poisoned: " + why));
  }
}

void StoreImpl::CheckpointOrPoison() {
  try {
    versions_->Checkpoint();
  } catch (const std::exception& e) {
    Poison(e.what());
    throw;
  }
  Publish(versions_->Current());
  IndexSealedSegments();
  ScheduleCompaction();
}

bool StoreImpl::IndexesVectors() const { return dim_ > 0 && VectorIndexes().any(); }

uint32_t StoreImpl::SealRows() const { return IndexesVectors() ? kSealRows : 0; }

void StoreImpl::NoteWriteForQuietSeal() {
  if (role_ == Role::kWriter && IndexesVectors() && versions_->largest_memory_segment() >= kMinAnnRows) quiet_seal_.Touch();
}

void StoreImpl::SealQuietSegments() {
  MutexLock writer(writer_mu_);
  if (closed_ || !poisoned().empty() || versions_->largest_memory_segment() < kMinAnnRows) return;
  try {
    CheckpointOrPoison();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera: sealing the memory segments after a quiet period failed: %s\n", e.what());
    return;
  }
  CrashPoint("quiet-seal-sealed");
}

VectorIndexConfig StoreImpl::VectorIndexes() const { return VectorIndexConfig{metric_, ann_, quantization_, options_.mmap}; }

void StoreImpl::IndexSealedSegments() {
  if (saver_) saver_->SaveLater();
  VectorIndexConfig config = VectorIndexes();
  if (!config.any() || role_ == Role::kInMemory) return;
  SnapshotPtr snap = versions_->Current();
  bool attached = false, waiting = false;
  for (const auto& [name, c] : snap->collections) {
    std::optional<std::set<uint64_t>> rewritten;
    for (const SegmentRef& ref : c->segments) {
      const Segment& segment = *ref.segment;
      if (!segment.sealed() || Indexed(ref) || segment.appended() < kMinAnnRows || background_.Building(segment.id())) continue;
      SegmentVectorIndexes saved = OpenSegmentVectorIndexes(options_.path, segment, config, *pool_);
      if (saved.complete || role_ != Role::kWriter) {
        attached |= versions_->AttachVectorIndexes(name, segment.id(), std::move(saved.first_pass), std::move(saved.ann));
        continue;
      }
      if (!merges_failing_) {
        if (!rewritten) rewritten = AboutToBeRewritten(*c, dim_);
        if (rewritten->count(segment.id()) > 0) {
          waiting = true;
          continue;
        }
      }
      background_.QueueBuild(segment.id(), [this, collection = name, segment = ref.segment] { BuildSegmentIndexes(collection, segment); });
    }
  }
  if (attached) Publish(versions_->Current());
  if (waiting) ScheduleCompaction();
}

bool StoreImpl::Indexed(const SegmentRef& ref) { return ref.indexes->ann() || ref.indexes->first_pass(); }

bool StoreImpl::AboutToBeRewrittenNow(const std::string& collection, uint64_t segment_id) {
  SnapshotPtr snap = versions_->Current();
  const CollectionState* c = snap->Find(collection);
  return c && AboutToBeRewritten(*c, dim_).count(segment_id) > 0;
}

void StoreImpl::BuildSegmentIndexes(const std::string& collection, const SegmentPtr& segment) {
  {
    // Queued before a merge that will take it became due: the merged segment gets the index.
    MutexLock writer(writer_mu_);
    if (!closed_ && !merges_failing_ && AboutToBeRewrittenNow(collection, segment->id())) {
      background_.BuildEnded(segment->id());
      ScheduleCompaction();
      return;
    }
  }
  SegmentVectorIndexes built;
  try {
    built = BuildSegmentVectorIndexes(options_.path, *segment, VectorIndexes(), *build_pool_, background_.stop());
  } catch (const std::exception& e) {
    // The segment stays on the exact scan; the next open tries again. A segment a compaction
    // replaced meanwhile is no loss: the sweep took its files, the half-built index's with them.
    if (!background_.stop().cancelled() && !versions_->Retired(segment->id()))
      std::fprintf(stderr, "tessera: building the vector indexes of segment %llu failed: %s\n", (unsigned long long)segment->id(),
                   e.what());
  }
  footprint_.graph_rows_inserted.fetch_add(built.inserted_graph_rows);
  MutexLock writer(writer_mu_);
  background_.BuildEnded(segment->id());
  if (built.complete && !closed_ &&
      versions_->AttachVectorIndexes(collection, segment->id(), std::move(built.first_pass), std::move(built.ann)))
    Publish(versions_->Current());
}

void StoreImpl::ScheduleCompaction() {
  if (role_ != Role::kWriter || closed_ || compaction_fault_.load() == CompactionFault::kHeld) return;
  auto worth = [this] { return PickCompaction(*versions_->Current(), dim_, CompactionScope::kAutomatic).has_value(); };
  background_.QueueCompaction(worth, [this] {
    bool compacted = false, failed = false;
    try {
      MutexLock one_at_a_time(compaction_mu_);
      compacted = CompactOnce(CompactionScope::kAutomatic);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tessera: background compaction abandoned: %s\n", e.what());
      failed = true;
    }
    MutexLock writer(writer_mu_);
    background_.CompactionEnded();
    merges_failing_ = failed;
    if (compacted) ScheduleCompaction();
    if (failed && !closed_ && poisoned().empty()) IndexSealedSegments();
  });
}

bool StoreImpl::TakeCompactionFault(CompactionFault where) {
  CompactionFault armed = where;
  return compaction_fault_.compare_exchange_strong(armed, CompactionFault::kNone);
}

bool StoreImpl::CompactOnce(CompactionScope scope) {
  CompactionJob job;
  {
    MutexLock writer(writer_mu_);
    if (closed_ || !poisoned().empty()) return false;
    std::optional<CompactionJob> picked = PickCompaction(*versions_->Current(), dim_, scope);
    if (!picked) return false;
    job = std::move(*picked);
    job.output_id = versions_->BeginCompaction();
  }
  footprint_.compactions_running.fetch_add(1);
  struct Running {
    std::atomic<uint64_t>& count;
    ~Running() { count.fetch_sub(1); }
  } running{footprint_.compactions_running};
  CompactedSegment out;
  uint32_t reused_graph_rows = 0, inserted_graph_rows = 0;
  try {
    out = RewriteSegments(job, options_.path, dim_, options_.mmap, background_.stop());
    const VectorIndexConfig config = VectorIndexes();
    if (out.segment && config.any() && out.segment->appended() >= kMinAnnRows && !BuildWaitsForNextRewrite(job, out)) {
      SegmentVectorIndexes built =
          BuildSegmentVectorIndexes(options_.path, *out.segment, config, *build_pool_, background_.stop(), ReusableAnn(job, out));
      if (built.complete) out.indexes = out.indexes->WithVectorIndexes(std::move(built.first_pass), std::move(built.ann));
      reused_graph_rows = built.reused_graph_rows;
      inserted_graph_rows = built.inserted_graph_rows;
    }
    CrashPoint("compaction-written");
    if (TakeCompactionFault(CompactionFault::kBeforeSwitch)) throw std::runtime_error("injected compaction fault");
  } catch (const std::exception&) {
    // Nothing was switched: the inputs serve on and a later compaction tries again.
    {
      MutexLock writer(writer_mu_);
      versions_->AbandonCompaction(job.output_id);
    }
    if (background_.stop().cancelled()) return false;
    throw;
  }
  MutexLock writer(writer_mu_);
  if (closed_) return false;
  try {
    if (TakeCompactionFault(CompactionFault::kAtSwitch)) throw std::runtime_error("injected compaction switch fault");
    if (!versions_->InstallCompaction(job, out)) return false;
  } catch (const std::exception& e) {
    // The switch may be half made in memory or on disk: nothing more can be trusted.
    Poison(std::string("compaction switch failed: ") + e.what());
    return false;
  }
  footprint_.compactions.fetch_add(1);
  footprint_.compaction_bytes.fetch_add(out.bytes);
  footprint_.graph_rows_reused.fetch_add(reused_graph_rows);
  footprint_.graph_rows_inserted.fetch_add(inserted_graph_rows);
  Publish(versions_->Current());
  IndexSealedSegments();
  return true;
}

bool StoreImpl::BuildWaitsForNextRewrite(const CompactionJob& job, const CompactedSegment& out) {
  // Only where queries scanned every input row already: an output replacing indexed inputs is
  // served indexed from its install on.
  if (std::any_of(job.inputs.begin(), job.inputs.end(), Indexed)) return false;
  SnapshotPtr snap = Current();
  const CollectionState* c = snap->Find(job.collection);
  return c && RewrittenAgain(*c, job, out, dim_);
}

void StoreImpl::CompactInMemory() {
  MutexLock writer(writer_mu_);
  CancelToken never;
  while (std::optional<CompactionJob> job = PickCompaction(*versions_->Current(), dim_, CompactionScope::kEverything)) {
    job->output_id = versions_->BeginCompaction();
    CompactedSegment out = RewriteSegments(*job, "", dim_, false, never);
    versions_->InstallCompaction(*job, out);
    footprint_.compactions.fetch_add(1);
    footprint_.compaction_bytes.fetch_add(out.bytes);
  }
  Publish(versions_->Current());
}

std::string StoreImpl::Compact(std::string_view body) {
  CheckWritable();
  if (ParseCompact(body).expired) DeleteExpired();
  if (role_ == Role::kInMemory) {
    CompactInMemory();
    return OneMember("ok", true);
  }
  // Held throughout, so the background compaction the checkpoint schedules waits for this one.
  MutexLock one_at_a_time(compaction_mu_);
  {
    MutexLock writer(writer_mu_);
    CheckWritable();
    CheckpointOrPoison();
  }
  // Writes keep arriving while this runs: bound the work to what there was to begin with.
  size_t budget = 16;
  SnapshotPtr snap = Current();
  for (const auto& [name, c] : snap->collections) budget += c->segments.size();
  while (budget-- > 0 && CompactOnce(CompactionScope::kAllDead)) {
  }
  CheckWritable();  // a failed switch poisoned the store
  return OneMember("ok", true);
}

void StoreImpl::StopIndexBuilds() {
  quiet_seal_.Stop();  // first: its checkpoint queues builds
  background_.Stop();
  if (saver_) saver_->Stop();
}

std::string StoreImpl::WaitForIndexes() {
  background_.WaitIdle();
  if (saver_) {
    saver_->WaitIdle();
    background_.WaitIdle();  // the sweep a save for a replaced segment asked for
  }
  return OneMember("ok", true);
}

std::string StoreImpl::WaitForIndexBuilds() {
  background_.WaitBuildsEnded();
  if (saver_) saver_->WaitIdle();
  return OneMember("ok", true);
}

std::string StoreImpl::Collections() {
  SnapshotPtr snap = Current();
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope names = w.Array();
    for (const auto& [name, c] : snap->collections) w.String(name);
  });
}

std::string StoreImpl::CreateCollection(const std::string& name) {
  Write(PendingWrite{CreateCollectionOp{name}});
  return OneMember("created", name);
}

std::string StoreImpl::DropCollection(const std::string& name) {
  Write(PendingWrite{DropCollectionOp{name}});
  return OneMember("dropped", name);
}

std::string StoreImpl::GetMeta(const std::string& name) {
  SnapshotPtr snap = Current();
  const CollectionState* c = snap->Find(name);  // the schema is held for every collection
  if (c == nullptr) throw NotFound("collection '" + name + "' does not exist");
  return JsonText([&](JsonWriter& w) { w.StringMap(c->schema->meta); });
}

std::string StoreImpl::PutMeta(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(PendingWrite{PutMetaOp{name, ParseMeta(body)}, ResolveAliasIn(*versions_, &PutMetaOp::name)});
  return OneMember("ok", true);
}

std::string StoreImpl::SetVectorNames(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(PendingWrite{SetVectorNamesOp{name, ParseVectorNames(body)}, ResolveAliasIn(*versions_, &SetVectorNamesOp::name)});
  return OneMember("ok", true);
}

std::string StoreImpl::SetFilterIndex(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(PendingWrite{SetFilterIndexOp{name, ParseFilterIndex(body)}});
  if (saver_) saver_->SaveLater();
  return OneMember("ok", true);
}

std::string StoreImpl::SetFtsSchema(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(PendingWrite{SetFtsSchemaOp{name, ParseFtsSchema(body)}});
  if (saver_) saver_->SaveLater();
  return OneMember("ok", true);
}

std::string StoreImpl::Aliases() {
  SnapshotPtr snap = Current();
  return JsonText([&](JsonWriter& w) { w.StringMap(snap->aliases); });
}

std::string StoreImpl::PutAlias(const std::string& name, std::string_view body) {
  CheckWritable();
  std::string target = ParseAliasTarget(body);
  SnapshotPtr snap = Current();
  auto current = snap->aliases.find(name);
  if (current == snap->aliases.end() || current->second != target) {
    Write(PendingWrite{PutAliasOp{name, target}});
  }
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Member("alias", name);
    w.Member("target", target);
  });
}

std::string StoreImpl::DropAlias(const std::string& name) {
  Write(PendingWrite{DropAliasOp{name}});
  return OneMember("dropped", name);
}

std::string StoreImpl::Upsert(const std::string& name, std::string_view body) {
  CheckWritable();
  return OneMember("upserted", Write(PendingWrite{ParseUpsert(body, name, dim_, metric_, ReservedKeys::kDrop, pool_.get()),
                                                  ResolveAliasIn(*versions_, &UpsertOp::collection)}));
}

std::string StoreImpl::UpsertStamped(const std::string& name, std::string_view body) {
  CheckWritable();
  UpsertOp op = ParseUpsert(body, name, dim_, metric_, ReservedKeys::kKeep, pool_.get());
  return OneMember("upserted", Write(PendingWrite{std::move(op), ResolveAliasIn(*versions_, &UpsertOp::collection)}));
}

std::string StoreImpl::Reinforce(const std::string& name, std::string_view body) {
  CheckWritable();
  ReinforceRequest req = ParseReinforce(body);
  {
    // Nothing to stamp writes nothing (an empty upsert would create a missing collection).
    SnapshotPtr snap = Current();
    const CollectionState* c = snap->Resolve(name);
    if (c == nullptr || !ReinforcesAny(*snap, *c, req)) return OneMember("reinforced", 0);
  }
  auto resolve = ResolveAliasIn(*versions_, &UpsertOp::collection);
  PendingWrite write{UpsertOp{name, {}, {}}, nullptr};
  // The stamps are read by the leader, so a reinforcement counts every one committed before it.
  write.prepare = [this, req = std::move(req), resolve](Op& op) {
    resolve(op);
    UpsertOp& upsert = std::get<UpsertOp>(op);
    SnapshotPtr snap = versions_->Current();
    auto it = snap->collections.find(upsert.collection);
    if (it == snap->collections.end()) return;  // validation reports the missing collection
    upsert = ReinforceUpsert(*snap, *it->second, req, dim_);
  };
  return OneMember("reinforced", Write(std::move(write)));
}

std::string StoreImpl::Get(const std::string& name, std::string_view body) {
  std::vector<std::string> ids = ParseGet(body);
  SnapshotPtr snap = Current();
  const CollectionState* c = snap->Resolve(name);
  if (c == nullptr) throw NotFound("collection '" + name + "' does not exist");
  CancelToken never;  // the ids asked for: sealed segments answer by index, memory ones in one pass
  return LiveRecordsJson(*c, snap->version, ids, never);
}

std::string StoreImpl::Delete(const std::string& name, std::string_view body) {
  CheckWritable();
  return OneMember("deleted", DeleteRows(name, ParseDelete(body)));
}

uint64_t StoreImpl::DeleteRows(const std::string& name, DeleteRequest&& req) {
  auto resolve = ResolveAliasIn(*versions_, &DeleteOp::collection);
  PendingWrite write{DeleteOp{name, std::move(req.ids)}, resolve};
  if (req.filter) {
    // The filter wins over ids and is evaluated by the leader, so the delete sees every batch
    // committed before it; the log records the resolved ids.
    write.prepare = [this, filter = std::move(*req.filter), resolve](Op& op) {
      resolve(op);
      DeleteOp& del = std::get<DeleteOp>(op);
      del.ids.clear();
      SnapshotPtr snap = versions_->Current();
      auto it = snap->collections.find(del.collection);
      if (it == snap->collections.end()) return;  // validation reports the missing collection
      CancelToken never;
      for (const MatchedRow& r : MatchRows(*snap, {it->second.get()}, filter, *pool_, never))
        del.ids.emplace_back(r.segment->row_id(r.row));
    };
  }
  return Write(std::move(write));
}

std::string StoreImpl::Refresh() {
  MutexLock writer(writer_mu_);
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ != Role::kReader || pinned()) return OneMember("adopted", false);
  VersionSet::Refreshed refreshed = versions_->Refresh();
  if (refreshed.switched) {
    Publish(versions_->Current());
    IndexSealedSegments();
  }
  return OneMember("adopted", refreshed.moved);
}

std::string StoreImpl::SetResident(std::optional<std::vector<std::string>> names) {
  MutexLock writer(writer_mu_);
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ != Role::kReader || pinned())
    throw BadRequest(
        "only a reader at its newest version changes what it holds with setResident; a writer opened with resident uses hold and release");
  std::optional<std::set<std::string>> set;
  if (names) set.emplace(names->begin(), names->end());
  versions_->ReloadHolding(std::move(set));
  Publish(versions_->Current());
  IndexSealedSegments();
  return OneMember("ok", true);
}

std::string StoreImpl::Hold(std::vector<std::string> names) {
  MutexLock writer(writer_mu_);
  CheckHolding();
  versions_->Hold(names);
  Publish(versions_->Current());
  IndexSealedSegments();
  return OneMember("ok", true);
}

std::string StoreImpl::Release(std::vector<std::string> names) {
  MutexLock writer(writer_mu_);
  CheckHolding();
  for (const std::string& name : names)
    if (versions_->RowsChangedSinceCheckpoint(name)) {
      CheckpointOrPoison();
      break;
    }
  versions_->Release(names);
  Publish(versions_->Current());
  return OneMember("ok", true);
}

void StoreImpl::CheckHolding() const {
  if (role_ != Role::kWriter || !options_.resident)
    throw BadRequest("only a writer opened with resident holds some collections and not others; a reader uses setResident");
  CheckWritable();
}

std::string StoreImpl::CollectionReads() {
  SnapshotPtr snap = Current();
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope reads = w.Object();
    for (const auto& [name, c] : snap->collections)
      if (c->resident) w.Member(name, c->last_used_us->load(std::memory_order_relaxed));
  });
}

std::string StoreImpl::Versions() { return versions_->Versions(commit_version(), pinned()); }

namespace {

// `"key": [names...]`, the file lists of the replication and backup points.
void NamesMember(JsonWriter& w, std::string_view key, const std::vector<std::string>& names) {
  w.Key(key);
  JsonWriter::Scope array = w.Array();
  for (const std::string& name : names) w.String(name);
}

}  // namespace

std::string StoreImpl::Replication() {
  MutexLock writer(writer_mu_);
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ != Role::kWriter) throw BadRequest("only the writer of a store on disk ships it; this one is a Reader or in memory");
  VersionSet::ReplicationPoint point = versions_->Replication();
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Member("generation", point.generation);
    w.Member("manifest", point.manifest);
    NamesMember(w, "files", point.files);
    NamesMember(w, "cold", point.cold);
    w.Member("log_bytes", point.log_bytes);
  });
}

std::string StoreImpl::BackupPoint() {
  MutexLock writer(writer_mu_);
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ == Role::kInMemory) throw BadRequest("an in-memory store has no files to back up");
  if (pinned())
    throw Error(Status::kConflict,
                "this instance serves a past version (pinned); back up the store from a writer or a read-only server at its latest");
  VersionSet::BackupPoint point = versions_->Backup();
  // A reader cannot keep the writer from removing files: its backup starts over when one goes.
  if (role_ == Role::kWriter) versions_->KeepForBackup(point.files);
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Member("commit_version", point.commit_version);
    w.Member("manifest", point.manifest);
    NamesMember(w, "files", point.files);
    w.Member("log_bytes", point.log_bytes);
    w.Member("current", point.current);
  });
}

std::string StoreImpl::BeginBackup() {
  if (backing_up_.exchange(true))
    throw Error(Status::kConflict, "a backup of this store is running (or being deleted); retry once it ends");
  return OneMember("ok", true);
}

std::string StoreImpl::EndBackup() {
  {
    MutexLock writer(writer_mu_);
    if (role_ == Role::kWriter && !closed_) versions_->KeepForBackup({});
  }
  backing_up_.store(false);
  return OneMember("ok", true);
}

std::string StoreImpl::Pin(uint64_t version) {
  MutexLock writer(writer_mu_);
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ != Role::kReader)
    throw Error(Status::kConflict, "only a read-only handle (a Reader) can move to a past version; this one writes or has no files");
  if (versions_->holds_some())
    throw Error(
        Status::kConflict,
        "this reader holds only some collections' files (resident), those of the newest version; pin a reader that holds every collection");
  versions_->LoadAt(version);
  pinned_ = version;
  Publish(versions_->Current());
  IndexSealedSegments();
  return OneMember("pinned", version);
}

std::string StoreImpl::SweepExpired() { return OneMember("deleted", DeleteExpired()); }

uint64_t StoreImpl::DeleteExpired() {
  CheckWritable();
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string expired = R"({"filter": [{"Lt": ["svc.expires_at", {"DateTime": )" + std::to_string(now) + "}]}]}";
  uint64_t deleted = 0;
  SnapshotPtr snap = Current();
  for (const auto& [name, c] : snap->collections) {
    // A writer holding some collections sweeps those: the others are swept once held again.
    if (!c->resident) continue;
    try {
      deleted += DeleteRows(name, ParseDelete(expired));
    } catch (const Error& e) {
      if (e.status() != Status::kNotFound) throw;  // dropped meanwhile: nothing left to sweep there
    }
  }
  return deleted;
}

std::unique_ptr<RecordsCursor> StoreImpl::OpenRecords(const std::string& name) {
  SnapshotPtr snap = Current();
  const CollectionState* c = snap->Resolve(name);
  if (c == nullptr) throw NotFound("collection '" + name + "' does not exist");
  CollectionPtr collection = snap->collections.at(c->name);
  return std::make_unique<CollectionRecordsCursor>(std::move(snap), std::move(collection), dim_);
}

QueryEnvironment StoreImpl::Environment() {
  return QueryEnvironment{metric_,    pool_.get(), inline_pool_.get(), ann_ ? &*ann_ : nullptr, quantization_ ? &*quantization_ : nullptr,
                          &footprint_};
}

template <typename Params, typename Answer>
std::unique_ptr<PreparedRead> StoreImpl::PrepareQuery(SnapshotPtr snap, Params params, Answer answer, bool runs_inline,
                                                      HitList (*hits)(const QueryContext&, const Params&)) {
  return std::make_unique<PreparedQuery<Params, Answer>>(std::move(snap), std::move(params), answer, Environment(), runs_inline, hits);
}

namespace {

// A plain read cannot answer rerank: the model is the library's to call (Store::Rerank).
void RefuseRerank(const SearchParams& p) {
  if (p.rerank)
    throw BadRequest("rerank is answered in two phases, the library calling the rerank provider between them; this read cannot take it");
}

}  // namespace

std::unique_ptr<PreparedRead> StoreImpl::Prepare(ReadRoute route, std::string_view body, const std::vector<float>* query,
                                                 InlineBound bound) {
  if (query != nullptr && route != ReadRoute::kSearch) throw Internal("a query vector beside the body is for /search only");
  switch (route) {
    case ReadRoute::kSearch: {
      SearchParams params = ParseSearch(body, dim_, metric_, query);
      RefuseRerank(params);
      SnapshotPtr snap = Current();
      QueryEnvironment env = Environment();
      bool runs_inline =
          bound != InlineBound::kNone && SearchRunsInline(*snap, params, SegmentQueryOf(params, metric_, env.ann, env.quantization), bound);
      return PrepareQuery(std::move(snap), std::move(params), &VectorSearch, runs_inline, &VectorHits);
    }
    case ReadRoute::kSimilar: {
      SimilarParams params = ParseSimilar(body);
      if (dim_ == 0) throw BadRequest("this store has dimension 0 (keyword-only); vector search is not possible");
      return PrepareQuery(Current(), std::move(params), &SimilarSearch);
    }
    case ReadRoute::kBatch: return PrepareQuery(Current(), ParseBatch(body, dim_, metric_), &BatchSearch);
    case ReadRoute::kText: {
      TextSearchParams params = ParseTextSearch(body);
      RefuseRerank(params.search);
      SnapshotPtr snap = Current();
      if (bound == InlineBound::kNone || !TextSearchMayRunInline(*snap, params))
        return PrepareQuery(std::move(snap), std::move(params), &tessera::TextSearch);
      // Preparing the text here (analysis, term lookups) tells whether the whole search is cheap;
      // the run reuses it against the same snapshot.
      PreparedText text = PrepareText(*snap, params.text, params.search.scope);
      PreparedTextSearch search{std::move(params), std::move(text)};
      bool runs_inline = TextSearchRunsInline(search, bound);
      return PrepareQuery(std::move(snap), std::move(search), &RunTextSearch, runs_inline);
    }
    case ReadRoute::kHybrid: {
      HybridParams params = ParseHybridSearch(body, dim_, metric_);
      RefuseRerank(params.search);
      return PrepareQuery(Current(), std::move(params), &tessera::HybridSearch);
    }
    case ReadRoute::kSuggest: return PrepareQuery(Current(), ParseSuggest(body), &tessera::Suggest);
    case ReadRoute::kList: return PrepareQuery(Current(), ParseList(body), &ListRecords);
    case ReadRoute::kAggregate: return PrepareQuery(Current(), ParseAggregate(body), &tessera::Aggregate);
  }
  throw Internal("unknown read route");
}

std::unique_ptr<RerankWindow> StoreImpl::Rerank(ReadRoute route, std::string_view body, const CancelToken& cancel) {
  SnapshotPtr snap = Current();
  QueryEnvironment env = Environment();
  QueryContext ctx{*snap, env.metric, *env.pool, cancel, env.ann, env.quantization};
  switch (route) {
    case ReadRoute::kSearch: {
      SearchParams p = ParseSearch(body, dim_, metric_);
      RankedPage page = RankVectorPage(ctx, WindowParams(p));
      return MakeRerankWindow(std::move(snap), env, std::move(page), std::move(p));
    }
    case ReadRoute::kText: {
      TextSearchParams window = ParseTextSearch(body);
      SearchParams p = window.search;
      window.search = WindowParams(p);
      PreparedText text = PrepareText(*snap, window.text, window.search.scope);
      RankedPage page = RankTextPage(ctx, PreparedTextSearch{std::move(window), std::move(text)});
      return MakeRerankWindow(std::move(snap), env, std::move(page), std::move(p));
    }
    case ReadRoute::kHybrid: {
      HybridParams window = ParseHybridSearch(body, dim_, metric_);
      SearchParams p = window.search;
      window.search = WindowParams(p);
      RankedPage page = RankHybridPage(ctx, window);
      return MakeRerankWindow(std::move(snap), env, std::move(page), std::move(p));
    }
    default: throw BadRequest("rerank is taken by /search, /text-search and /hybrid-search");
  }
}

void StoreImpl::Submit(std::function<void()> job) { pool_->Submit(std::move(job)); }

void StoreImpl::SubmitBlocking(std::function<void()> job) { blocking_pool_->Submit(std::move(job)); }

std::string StoreImpl::Stats() {
  SnapshotPtr snap = Current();
  return StatsJson(*snap, StoreFacts{dim_, metric_, pool_->size(), options_.mmap, ann_, quantization_});
}

std::string StoreImpl::Flush() {
  MutexLock writer(writer_mu_);
  CheckWritable();  // a write like the others: 409 naming the holder on a Reader, 403 read-only
  if (role_ == Role::kWriter) CheckpointOrPoison();
  return OneMember("ok", true);
}

void StoreImpl::Close() {
  StopIndexBuilds();
  MutexLock writer(writer_mu_);
  if (closed_) return;
  closed_ = true;
  if (role_ == Role::kWriter && poisoned().empty()) {
    CheckpointOrPoison();
    saver_->SaveNow();  // the background saver has stopped; the next open finds every file
  }
  lock_.reset();
}

}  // namespace tessera
