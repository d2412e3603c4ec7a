#include "tessera/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <thread>

#include "byte_io.h"
#include "tessera/error.h"
#include "tessera/exact_search.h"
#include "tessera/text_search.h"
#include "tessera/file_util.h"
#include "tessera/json_writer.h"
#include "tessera/kernels.h"
#include "tessera/manifest.h"
#include "tessera/metadata_queries.h"
#include "tessera/scan.h"
#include "tessera/request_parser.h"

namespace tessera {

// One batch waiting for the group-commit leader.
struct PendingWrite {
  Op op;
  std::function<void(Op&)> prepare;
  uint64_t result = 0;
  std::exception_ptr error;
  bool done = false;
};

namespace {

// Checkpoint once this many rows wait in memory segments or the log grows this large, bounding
// both recovery time and memory not backed by files.
constexpr uint64_t kCheckpointRows = 1 << 18;
constexpr uint64_t kCheckpointLogBytes = 256ull << 20;

std::string WalPath(const std::string& dir) { return dir + "/wal.log"; }

void MakeDirs(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
        throw Internal("cannot create directory " + partial + ": " + std::strerror(errno));
    }
  }
}

std::string Json(const char* key, const std::string& value) {
  std::string out = "{";
  JsonWriter w(&out);
  w.Key(key);
  w.String(value);
  w.Char('}');
  return out;
}

std::vector<std::string_view> CollectionNames(const Snapshot& snap) {
  std::vector<std::string_view> names;
  for (const auto& [name, c] : snap.collections) names.push_back(name);
  return names;
}

std::string JsonCount(const char* key, uint64_t n) {
  std::string out = "{";
  JsonWriter w(&out);
  w.Key(key);
  w.UInt(n);
  w.Char('}');
  return out;
}

}  // namespace

Store::Store(const StoreOptions& options) : options_(options) {}

// A store dropped without Close() loses nothing: every acknowledged batch is in the log.
Store::~Store() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::unique_ptr<Store> Store::Open(const StoreOptions& options) {
  std::unique_ptr<Store> s(new Store(options));
  size_t threads = options.query_threads ? options.query_threads : std::max(1u, std::thread::hardware_concurrency());
  s->pool_ = std::make_unique<ThreadPool>(threads);
  if (options.in_memory) {
    if (!options.dimension) throw BadRequest("an in-memory store needs a dimension (0 for keyword-only)");
    s->role_ = Role::kInMemory;
    s->dim_ = *options.dimension;
    s->metric_ = options.metric.value_or(Metric::kCosine);
    s->state_ = std::make_unique<StoreState>(s->dim_, 1);
    s->Publish(s->state_->Freeze(0));
    return s;
  }
  s->OpenFiles();
  s->Recover();
  return s;
}

void Store::OpenFiles() {
  const std::string& dir = options_.path;
  if (dir.empty()) throw BadRequest("a store needs a path (or in-memory mode)");
  MakeDirs(dir);
  if (options_.read_only) {
    role_ = Role::kReader;
  } else {
    lock_fd_ = ::open((dir + "/LOCK").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) throw Internal("cannot open " + dir + "/LOCK: " + std::strerror(errno));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0) {
      std::string who = "pid " + std::to_string(::getpid());
      if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, who.data(), who.size(), 0) < 0)
        throw Internal("cannot write " + dir + "/LOCK: " + std::strerror(errno));
      role_ = Role::kWriter;
    } else {
      role_ = Role::kReader;
      writer_holder_ = ReadWholeFile(dir + "/LOCK");
      if (writer_holder_.empty()) writer_holder_ = "another process";
      ::close(lock_fd_);
      lock_fd_ = -1;
    }
  }
  std::optional<StoreHeader> header = ReadHeader(dir);
  if (!header) {
    if (role_ != Role::kWriter) throw Error(Status::kUnavailable, "no store exists at " + dir + " yet");
    if (!options_.dimension) throw BadRequest("a new store needs a dimension (0 for keyword-only)");
    header = StoreHeader{kFormatVersion, *options_.dimension, options_.metric.value_or(Metric::kCosine)};
    WriteHeader(dir, *header);
  }
  if (options_.dimension && *options_.dimension != header->dimension)
    throw BadRequest("dimension mismatch: the store at " + dir + " has dimension " + std::to_string(header->dimension) +
                     ", but dimension " + std::to_string(*options_.dimension) + " was requested");
  if (options_.metric && *options_.metric != header->metric)
    throw BadRequest(std::string("distance mismatch: the store at ") + dir + " uses " + MetricName(header->metric) +
                     ", but " + MetricName(*options_.metric) + " was requested");
  dim_ = header->dimension;
  metric_ = header->metric;
}

void Store::Recover() {
  const std::string& dir = options_.path;
  std::optional<Manifest> manifest = ReadManifest(dir);
  state_ = std::make_unique<StoreState>(dim_, manifest ? manifest->next_segment_id : 1);
  if (manifest) {
    version_ = manifest->commit_version;
    for (const ManifestCollection& c : manifest->collections) {
      state_->AddCollection(c.name, c.meta, c.vector_names, c.filter_index, c.fts);
      for (const ManifestSegment& ms : c.segments)
        state_->AdoptSealedSegment(c.name, Segment::OpenSealed(dir, ms.id, dim_, options_.mmap, ms.deletions));
    }
    for (const auto& [name, target] : manifest->aliases) state_->SetAlias(name, target);
  }
  Wal::Replay(WalPath(dir), role_ == Role::kWriter, [&](std::string_view payload) {
    ByteReader r(payload);
    uint64_t version = r.Fixed<uint64_t>();
    if (version <= version_) return;  // already part of the manifest's checkpoint
    state_->Apply(DecodeOp(r.rest(), dim_), version);
    version_ = version;
  });
  if (role_ == Role::kWriter) wal_.OpenForAppend(WalPath(dir));
  Publish(state_->Freeze(version_, pool_.get()));
}

SnapshotPtr Store::Current() const {
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  std::lock_guard<std::mutex> lock(snap_mu_);
  return snap_;
}

void Store::Publish(SnapshotPtr snap) {
  uint64_t rows = 0, dead = 0, live = 0;
  for (const auto& [name, c] : snap->collections) {
    rows += c->rows;
    dead += c->dead_rows;
    live += c->live_rows;
  }
  footprint_.rows = rows;
  footprint_.dead_rows = dead;
  footprint_.doc_count = live;
  footprint_.collections = snap->collections.size();
  commit_version_.store(snap->version, std::memory_order_release);
  std::lock_guard<std::mutex> lock(snap_mu_);
  snap_ = std::move(snap);
}

std::string Store::poisoned() const {
  std::lock_guard<std::mutex> lock(poison_mu_);
  return poisoned_;
}

void Store::Poison(const std::string& why) {
  std::lock_guard<std::mutex> lock(poison_mu_);
  if (poisoned_.empty()) poisoned_ = why;
}

void Store::CheckWritable() const {
  std::string poison = poisoned();
  if (!poison.empty()) throw Error(Status::kUnavailable, "the store is poisoned (" + poison + "); restart the process");
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ == Role::kReader) {
    if (options_.read_only) throw Error(Status::kForbidden, "this store was opened read-only; writes are refused");
    throw Error(Status::kConflict, "the store at " + options_.path + " is locked for writing by " + writer_holder_ +
                                       "; this process serves it as a Reader");
  }
}

uint64_t Store::Write(Op op, std::function<void(Op&)> prepare) {
  CheckWritable();
  PendingWrite pw{std::move(op), std::move(prepare), 0, nullptr, false};
  std::unique_lock<std::mutex> lock(queue_mu_);
  queue_.push_back(&pw);
  while (!pw.done) {
    if (leader_active_) {
      queue_cv_.wait(lock);
      continue;
    }
    // Become the leader: commit everything queued so far behind one fsync.
    leader_active_ = true;
    std::deque<PendingWrite*> group;
    group.swap(queue_);
    lock.unlock();
    {
      std::lock_guard<std::mutex> writer(writer_mu_);
      CommitGroup(group);
    }
    lock.lock();
    for (PendingWrite* p : group) p->done = true;
    leader_active_ = false;
    queue_cv_.notify_all();
  }
  if (pw.error) std::rethrow_exception(pw.error);
  return pw.result;
}

void Store::CommitGroup(std::deque<PendingWrite*>& group) {
  std::vector<PendingWrite*> applied;
  try {
    for (PendingWrite* pw : group) {
      try {
        CheckWritable();  // the store may have been poisoned or closed while this batch queued
        if (pw->prepare) pw->prepare(pw->op);
        state_->Validate(pw->op);
      } catch (const Error&) {
        pw->error = std::current_exception();
        continue;
      }
      if (inject_fault_.exchange(false)) throw std::runtime_error("injected write fault");
      uint64_t version = version_ + 1;
      if (role_ == Role::kWriter) {
        std::string payload;
        PutFixed<uint64_t>(&payload, version);
        payload += EncodeOp(pw->op, dim_);
        wal_.Append(payload);
      }
      applied.push_back(pw);
      pw->result = state_->Apply(pw->op, version);
      version_ = version;
    }
    if (applied.empty()) return;
    if (role_ == Role::kWriter) wal_.Sync();
    Publish(state_->Freeze(version_, pool_.get()));
    if (role_ == Role::kWriter && (state_->memory_rows() >= kCheckpointRows || wal_.bytes() >= kCheckpointLogBytes))
      Checkpoint();
  } catch (const std::exception& e) {
    // Memory may hold part of a batch that the log does not: nothing more can be trusted.
    Poison(e.what());
    for (PendingWrite* pw : group)
      if (!pw->error) pw->error = std::make_exception_ptr(Error(Status::kUnavailable, std::string("write failed and the store is now poisoned: ") + e.what()));
  }
}

void Store::Checkpoint() {
  const std::string& dir = options_.path;
  Manifest m;
  m.commit_version = version_;
  std::map<std::string, size_t> index;
  for (const auto& [name, info] : state_->Catalog()) {
    index[name] = m.collections.size();
    m.collections.push_back({name, *info.meta, *info.vector_names, *info.filter_index, *info.fts, {}});
  }
  std::set<std::string> keep = {"HEADER", "MANIFEST", "LOCK", "wal.log"};
  for (StoreState::SegmentSlot slot : state_->AllSegments()) {
    uint32_t rows = slot.segment->appended();
    if (rows == 0) continue;
    if (!slot.segment->sealed()) {
      slot.segment->Persist(dir, rows);
      SegmentPtr sealed = Segment::OpenSealed(dir, slot.segment->id(), dim_, options_.mmap, "");
      sealed->CopyDeletionsFrom(*slot.segment, rows);
      state_->ReplaceSegment(slot.collection, slot.segment, sealed);
      slot.segment = sealed;
    }
    ManifestSegment ms{slot.segment->id(), rows, ""};
    bool any_deleted = false;
    for (uint32_t r = 0; r < rows && !any_deleted; ++r) any_deleted = slot.segment->deleted(r);
    if (any_deleted) {
      ms.deletions = "seg-" + std::to_string(ms.id) + ".del." + std::to_string(version_);
      slot.segment->PersistDeletions(dir + "/" + ms.deletions, rows, version_);
      keep.insert(ms.deletions);
    }
    for (const std::string& f : Segment::FileNames(ms.id)) keep.insert(f);
    m.collections[index[slot.collection]].segments.push_back(ms);
  }
  m.aliases = state_->aliases();
  m.next_segment_id = state_->next_segment_id();
  WriteManifest(dir, m);
  wal_.Reset();
  // Files no manifest names any more: dropped collections, superseded deletion bitmaps.
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind("seg-", 0) == 0 && !keep.count(name)) RemoveFile(dir + "/" + name);
    }
    ::closedir(d);
  }
  Publish(state_->Freeze(version_, pool_.get()));
}

// Data routes accept an alias; the leader resolves it so a concurrent repoint cannot split a
// write between the old and the new target.
template <typename OpT>
static std::function<void(Op&)> ResolveAliasIn(StoreState& state, std::string OpT::*field) {
  return [&state, field](Op& op) {
    std::string& name = std::get<OpT>(op).*field;
    name = state.ResolveAlias(name);
  };
}

std::string Store::Collections() {
  SnapshotPtr snap = Current();
  std::string out;
  JsonWriter(&out).StringArray(CollectionNames(*snap));
  return out;
}

std::string Store::CreateCollection(const std::string& name) {
  Write(CreateCollectionOp{name});
  return Json("created", name);
}

std::string Store::DropCollection(const std::string& name) {
  Write(DropCollectionOp{name});
  return Json("dropped", name);
}

std::string Store::GetMeta(const std::string& name) {
  SnapshotPtr snap = Current();
  const CollectionState* c = snap->Resolve(name);
  if (c == nullptr) throw NotFound("collection '" + name + "' does not exist");
  std::string out;
  JsonWriter(&out).StringMap(c->meta);
  return out;
}

std::string Store::PutMeta(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(PutMetaOp{name, ParseMeta(body)}, ResolveAliasIn(*state_, &PutMetaOp::name));
  return "{\"ok\":true}";
}

std::string Store::SetVectorNames(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(SetVectorNamesOp{name, ParseVectorNames(body)}, ResolveAliasIn(*state_, &SetVectorNamesOp::name));
  return "{\"ok\":true}";
}

std::string Store::SetFilterIndex(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(SetFilterIndexOp{name, ParseFilterIndex(body)});
  return "{\"ok\":true}";
}

std::string Store::SetFtsSchema(const std::string& name, std::string_view body) {
  CheckWritable();
  Write(SetFtsSchemaOp{name, ParseFtsSchema(body)});
  return "{\"ok\":true}";
}

std::string Store::Aliases() {
  SnapshotPtr snap = Current();
  std::string out;
  JsonWriter(&out).StringMap(snap->aliases);
  return out;
}

std::string Store::PutAlias(const std::string& name, std::string_view body) {
  CheckWritable();
  std::string target = ParseAliasTarget(body);
  SnapshotPtr snap = Current();
  auto current = snap->aliases.find(name);
  if (current == snap->aliases.end() || current->second != target) Write(PutAliasOp{name, target});
  std::string out = "{";
  JsonWriter w(&out);
  w.Key("alias");
  w.String(name);
  w.Char(',');
  w.Key("target");
  w.String(target);
  w.Char('}');
  return out;
}

std::string Store::DropAlias(const std::string& name) {
  Write(DropAliasOp{name});
  return Json("dropped", name);
}

std::string Store::Upsert(const std::string& name, std::string_view body) {
  CheckWritable();
  return JsonCount("upserted", Write(ParseUpsert(body, name, dim_, metric_), ResolveAliasIn(*state_, &UpsertOp::collection)));
}

std::string Store::Delete(const std::string& name, std::string_view body) {
  CheckWritable();
  DeleteRequest req = ParseDelete(body);
  auto resolve = ResolveAliasIn(*state_, &DeleteOp::collection);
  if (!req.filter) return JsonCount("deleted", Write(DeleteOp{name, std::move(req.ids)}, resolve));
  // The filter wins over ids and is evaluated by the leader, so the delete sees every batch
  // committed before it; the log records the resolved ids.
  Filter filter = *req.filter;
  return JsonCount("deleted", Write(DeleteOp{name, {}}, [this, filter, resolve](Op& op) {
    resolve(op);
    DeleteOp& del = std::get<DeleteOp>(op);
    SnapshotPtr snap = state_->Freeze(version_, pool_.get());
    auto it = snap->collections.find(del.collection);
    if (it == snap->collections.end()) return;  // validation reports the missing collection
    CancelToken never;
    for (const MatchedRow& r : MatchRows(*snap, {it->second.get()}, filter, *pool_, never))
      del.ids.emplace_back(r.segment->row_id(r.row));
  }));
}

std::unique_ptr<RecordsCursor> Store::OpenRecords(const std::string& name) {
  SnapshotPtr snap = Current();
  const CollectionState* c = snap->Resolve(name);
  if (c == nullptr) throw NotFound("collection '" + name + "' does not exist");
  CollectionPtr collection = snap->collections.at(c->name);
  return std::make_unique<RecordsCursor>(std::move(snap), std::move(collection), dim_);
}

std::string Store::Search(std::string_view body, const CancelToken& cancel) {
  SearchParams params = ParseSearch(body, dim_, metric_);
  SnapshotPtr snap = Current();
  return ExactSearch(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::SearchSimilar(std::string_view body, const CancelToken& cancel) {
  SimilarParams params = ParseSimilar(body);
  if (dim_ == 0) throw BadRequest("this store has dimension 0 (keyword-only); vector search is not possible");
  SnapshotPtr snap = Current();
  return SimilarSearch(QueryContext{*snap, metric_, *pool_, cancel}, std::move(params));
}

std::string Store::SearchBatch(std::string_view body, const CancelToken& cancel) {
  BatchParams params = ParseBatch(body, dim_, metric_);
  SnapshotPtr snap = Current();
  return BatchSearch(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::TextSearch(std::string_view body, const CancelToken& cancel) {
  TextSearchParams params = ParseTextSearch(body);
  SnapshotPtr snap = Current();
  return tessera::TextSearch(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::HybridSearch(std::string_view body, const CancelToken& cancel) {
  HybridParams params = ParseHybridSearch(body, dim_, metric_);
  SnapshotPtr snap = Current();
  return tessera::HybridSearch(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::Suggest(std::string_view body, const CancelToken& cancel) {
  SuggestParams params = ParseSuggest(body);
  SnapshotPtr snap = Current();
  return tessera::Suggest(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::List(std::string_view body, const CancelToken& cancel) {
  ListParams params = ParseList(body);
  SnapshotPtr snap = Current();
  return ListRecords(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::Aggregate(std::string_view body, const CancelToken& cancel) {
  AggregateParams params = ParseAggregate(body);
  SnapshotPtr snap = Current();
  return tessera::Aggregate(QueryContext{*snap, metric_, *pool_, cancel}, params);
}

std::string Store::Stats() {
  SnapshotPtr snap = Current();
  uint64_t rows = 0, dead = 0, live = 0;
  std::string out = "{";
  JsonWriter w(&out);
  w.Key("dimension");
  w.UInt(dim_);
  w.Raw(",\"distance\":");
  w.String(MetricName(metric_));
  w.Raw(",\"ann\":null,\"quantization\":null,\"query_threads\":");
  w.UInt(pool_->size());
  w.Raw(",\"mmap\":");
  w.Bool(options_.mmap);
  w.Raw(",\"collections\":");
  w.StringArray(CollectionNames(*snap));
  uint64_t text_bytes = 0;
  for (const auto& [name, c] : snap->collections) {
    rows += c->rows;
    dead += c->dead_rows;
    live += c->live_rows;
    for (const SegmentRef& ref : c->segments) text_bytes += ref.text ? ref.text->bytes() : 0;
  }
  w.Raw(",\"footprint\":{\"rows\":");
  w.UInt(rows);
  w.Raw(",\"dead_rows\":");
  w.UInt(dead);
  w.Raw(",\"dimension\":");
  w.UInt(dim_);
  w.Raw(",\"vector_bytes\":");
  w.UInt(rows * dim_ * sizeof(float));
  w.Raw(",\"doc_count\":");
  w.UInt(live);
  w.Raw("},\"text_index_bytes\":");
  w.UInt(text_bytes);
  w.Raw(",\"kernels\":");
  w.String(ActiveKernels().name);
  w.Char('}');
  return out;
}

std::string Store::Flush() {
  std::lock_guard<std::mutex> writer(writer_mu_);
  if (closed_) throw Error(Status::kUnavailable, "the store is closed");
  if (role_ != Role::kWriter) return "{\"ok\":true}";
  CheckWritable();
  try {
    Checkpoint();
  } catch (const std::exception& e) {
    Poison(e.what());
    throw;
  }
  return "{\"ok\":true}";
}

void Store::Close() {
  std::lock_guard<std::mutex> writer(writer_mu_);
  if (closed_) return;
  closed_ = true;
  if (role_ == Role::kWriter && poisoned().empty()) {
    try {
      Checkpoint();
    } catch (const std::exception& e) {
      Poison(e.what());
      throw;
    }
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

}  // namespace tessera
