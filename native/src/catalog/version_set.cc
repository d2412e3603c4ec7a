#include "catalog/version_set.h"

#include <algorithm>
#include <set>

#include "catalog/history.h"
#include "catalog/sealed_indexes.h"
#include "storage/file_names.h"
#include "tessera/error.h"
#include "util/byte_io.h"
#include "util/crash_point.h"
#include "util/file_util.h"
#include "util/json_writer.h"

namespace tessera {
namespace {

// How often a reader's load is tried while the writer keeps switching manifests under it.
constexpr int kLoadAttempts = 8;

// Checkpoint once this many rows wait in memory segments or the log grows this large, bounding
// both recovery time and memory not backed by files.
constexpr uint64_t kCheckpointRows = 1 << 18;
constexpr uint64_t kCheckpointLogBytes = 256ull << 20;

bool AnyDeletedBy(const Segment& segment, uint32_t rows, uint64_t version) {
  for (uint32_t r = 0; r < rows; ++r)
    if (segment.deleted_at(r) <= version) return true;
  return false;
}

// The manifest entry of a sealed segment, with a deletion bitmap as of version written when any
// of its rows was deleted by then.
ManifestSegment Entry(const std::string& dir, const Segment& segment, uint32_t rows, uint64_t version) {
  ManifestSegment ms{segment.id(), rows, ""};
  if (AnyDeletedBy(segment, rows, version)) {
    ms.deletions = DeletionsFileName(ms.id, version);
    segment.PersistDeletions(dir + "/" + ms.deletions, rows, version);
  }
  return ms;
}

}  // namespace

VersionSet::VersionSet(std::string dir, uint32_t dim, bool mmap, bool logging, uint64_t history_versions, ThreadPool& pool)
    : dir_(std::move(dir)), dim_(dim), mmap_(mmap), logging_(logging), history_versions_(history_versions), pool_(pool), state_(dim, 1) {}

void VersionSet::Recover() {
  if (dir_.empty()) return;
  Load();
  if (!logging_) return;
  wal_.OpenForAppend(WalPath(dir_));
  log_ = std::make_unique<LogPipeline>(&wal_, dim_, pool_);
  next_sequence_ = History::List(dir_).NextSequence();
}

void VersionSet::Load(uint64_t at_least) {
  // A reader may read a manifest whose files a checkpoint or compaction of the writer removes, or
  // a log the writer empties, before it has read them: it tries again while the manifest moves.
  // An emptied log reads as no error at all: after a compaction's manifest, which keeps the
  // checkpoint's version, it leaves the state at that version, behind what the reader served.
  auto not_behind = [&](uint64_t reached) {
    if (reached < at_least)
      throw Error(Status::kInternal, "the log was emptied after its manifest was read: version " + std::to_string(reached) + " is behind " +
                                         std::to_string(at_least));
  };
  for (int attempt = 1;; ++attempt) {
    std::optional<Manifest> manifest = ReadManifest(dir_);
    try {
      return LoadFrom(manifest, {WalPath(dir_)}, UINT64_MAX, not_behind);
    } catch (const Error&) {
      std::optional<Manifest> now = ReadManifest(dir_);
      bool moved = (now ? ManifestText(*now) : "") != (manifest ? ManifestText(*manifest) : "");
      if (logging_ || !moved || attempt == kLoadAttempts) throw;
    }
  }
}

void VersionSet::ReloadHolding(std::optional<std::set<std::string>> names) {
  std::swap(resident_, names);
  try {
    Load(version_);
  } catch (...) {
    resident_ = std::move(names);
    throw;
  }
}

namespace {

Error Unreadable(uint64_t target, uint64_t oldest, const std::string& why) {
  return BadRequest("version " + std::to_string(target) + " is not readable (" + why + "); the oldest readable version is " +
                    std::to_string(oldest));
}

}  // namespace

void VersionSet::CheckReadable(const std::string& dir, uint64_t target) {
  History history = History::List(dir);
  uint64_t oldest = history.OldestReadable();
  if (target < oldest) throw Unreadable(target, oldest, "its files are gone");
  uint64_t newest = history.manifests.empty() ? 0 : history.manifests.back().version;
  Wal::Replay(WalPath(dir), false, [&](std::string_view payload) { newest = std::max(newest, ByteReader(payload).Fixed<uint64_t>()); });
  if (target > newest) throw Unreadable(target, oldest, "the newest is " + std::to_string(newest));
}

void VersionSet::LoadAt(uint64_t target) {
  // The writer may rotate the log or drop kept files between the listing and the reads: a failure
  // to read what was listed is tried again on a fresh listing.
  for (int attempt = 1;; ++attempt) {
    try {
      return LoadAtOnce(target);
    } catch (const Error& e) {
      if (e.status() != Status::kInternal || attempt == kLoadAttempts) throw;
    }
  }
}

void VersionSet::LoadAtOnce(uint64_t target) {
  History history = History::List(dir_);
  uint64_t oldest = history.OldestReadable();
  std::optional<KeptManifest> base = history.BaseFor(target);
  auto unreadable = [&](const std::string& why) { return Unreadable(target, oldest, why); };
  if (target < oldest) throw unreadable("its files are gone");
  std::optional<Manifest> manifest;
  if (base) manifest = ReadManifestFile(dir_ + "/" + base->name);
  std::vector<std::string> logs;
  for (const KeptLog& log : history.logs)
    if (log.to > (base ? base->commit_version : 0)) logs.push_back(dir_ + "/" + log.name);
  LoadFrom(manifest, logs, target, [&](uint64_t reached) {
    if (reached != target) throw unreadable("the newest is " + std::to_string(reached));
  });
}

void VersionSet::OpenSealed(std::vector<SealedToOpen>& sealed) {
  pool_.ParallelFor(sealed.size(), [&](size_t i) {
    SealedToOpen& s = sealed[i];
    s.segment = Segment::OpenSealed(dir_, s.meta->id, dim_, mmap_, s.meta->deletions, logging_);
    s.indexes = OpenSealedSegmentIndexes(dir_, *s.segment, *s.schema, logging_);
  });
}

void VersionSet::LoadFrom(const std::optional<Manifest>& manifest, const std::vector<std::string>& logs, uint64_t until,
                          const std::function<void(uint64_t)>& check) {
  StoreState state(dim_, manifest ? manifest->next_segment_id : 1);
  uint64_t version = manifest ? manifest->commit_version : 0;
  if (manifest) {
    auto resident = [&](const std::string& name) { return !resident_ || resident_->count(name) > 0; };
    std::vector<SealedToOpen> sealed;
    for (const ManifestCollection& c : manifest->collections)
      if (resident(c.name))
        for (const ManifestSegment& ms : c.segments) sealed.push_back({c.name, &c.schema, &ms});
    OpenSealed(sealed);
    for (const ManifestCollection& c : manifest->collections)
      state.AddCollection(c.name, c.schema, resident(c.name), resident(c.name) ? std::vector<ManifestSegment>{} : c.segments);
    for (SealedToOpen& s : sealed) state.AdoptSealedSegment(s.collection, std::move(s.segment), std::move(s.indexes));
    for (const auto& [name, target] : manifest->aliases) state.SetAlias(name, target);
  }
  uint64_t offset = 0;
  for (const std::string& log : logs) offset = ReplayLog(state, version, log, 0, until);
  if (logging_ && !state.ColdRowsLogged().empty())
    throw NotResidentError(std::vector<std::string>(state.ColdRowsLogged().begin(), state.ColdRowsLogged().end()));
  if (check) check(version);
  state_ = std::move(state);
  version_ = version;
  manifest_ = manifest.value_or(Manifest{});
  manifest_text_ = manifest ? ManifestText(*manifest) : "";
  wal_offset_ = offset;
}

uint64_t VersionSet::ReplayLog(StoreState& state, uint64_t& version, const std::string& log, uint64_t from, uint64_t until) {
  return Wal::Replay(
      log, logging_,
      [&](std::string_view payload) {
        ByteReader r(payload);
        uint64_t v = r.Fixed<uint64_t>();
        if (v <= version || v > until) return;  // already part of the manifest's checkpoint, or past the target
        // The log continues the manifest's version; a jump means it was emptied and refilled after
        // a newer manifest than the one being replayed onto.
        if (v != version + 1)
          throw Error(Status::kInternal, "the log jumps from version " + std::to_string(version) + " to " + std::to_string(v));
        state.Apply(DecodeOp(r.rest(), dim_), v);
        version = v;
      },
      from);
}

VersionSet::Refreshed VersionSet::Refresh() {
  uint64_t before = version_;
  std::optional<Manifest> manifest = ReadManifest(dir_);
  if ((manifest ? ManifestText(*manifest) : "") == manifest_text_) {
    // The same checkpoint: what the log gained since is applied in place.
    try {
      wal_offset_ = ReplayLog(state_, version_, WalPath(dir_), wal_offset_, UINT64_MAX);
      std::optional<Manifest> now = ReadManifest(dir_);
      if ((now ? ManifestText(*now) : "") == manifest_text_) return Refreshed{version_ != before, version_ != before};
    } catch (const Error&) {
      // Emptied and refilled after a newer checkpoint: reload below.
    }
  }
  Load(before);
  return Refreshed{version_ != before, true};
}

uint64_t VersionSet::LogAndApply(const Op& op) {
  uint64_t version = version_ + 1;
  uint64_t changed = 0;
  auto apply = [&] { changed = state_.Apply(op, version); };
  if (log_)
    log_->AppendAndApply(version, op, apply);
  else
    apply();
  state_.NoteUse(op);
  version_ = version;
  return changed;
}

void VersionSet::Sync() {
  if (log_) log_->Sync();
}

bool VersionSet::CheckpointDue(uint32_t seal_rows) const {
  return logging_ && (state_.memory_rows() >= kCheckpointRows || state_.MemorySegmentNearlyFull() || state_.MemorySegmentMostlyDead() ||
                      wal_.bytes() >= kCheckpointLogBytes || (seal_rows > 0 && state_.largest_memory_segment() >= seal_rows));
}

void VersionSet::SealMemorySegments(const Snapshot& snap) {
  for (const auto& [name, c] : snap.collections) {
    for (const SegmentRef& ref : c->segments) {
      if (ref.rows == 0 || ref.segment->sealed()) continue;
      ref.segment->Persist(dir_, ref.rows);
      SegmentPtr sealed = Segment::OpenSealed(dir_, ref.segment->id(), dim_, mmap_, "", logging_);
      sealed->CopyDeletionsFrom(*ref.segment, ref.rows);
      state_.ReplaceSegment(name, ref.segment, std::move(sealed));
    }
  }
}

void VersionSet::Checkpoint() {
  if (!logging_) return;
  uint64_t previous = manifest_.commit_version;
  SealMemorySegments(*Current());
  SnapshotPtr snap = Current();
  Manifest m;
  m.commit_version = version_;
  m.next_segment_id = state_.next_segment_id();
  m.aliases = snap->aliases;
  for (const auto& [name, c] : snap->collections) {
    ManifestCollection& mc = m.collections.emplace_back(ManifestCollection{name, *c->schema, {}});
    if (!c->resident) {
      // Not held: its rows did not change since the manifest that named these segments.
      mc.segments = *state_.ColdSegments(name);
      continue;
    }
    for (const SegmentRef& ref : c->segments)
      if (ref.rows > 0) mc.segments.push_back(Entry(dir_, *ref.segment, ref.rows, version_));
  }
  ReplaceManifest(std::move(m));
  // The manifest names the sealed segments while the log still holds their rows: an open must
  // replay only what the manifest's commit version lacks.
  CrashPoint("checkpoint-manifest-written");
  state_.MarkCheckpointed();
  if (history_versions_ > 0 && version_ > previous)
    wal_.Rotate(dir_ + "/" + KeptLogName(previous, version_));
  else
    wal_.Reset();
  RemoveUnnamedFiles(manifest_);
}

void VersionSet::ReplaceManifest(Manifest m) {
  // With history on the replaced manifest stays, under its version and a sequence number.
  if (history_versions_ > 0 && FileExists(ManifestPath(dir_)))
    WriteFileAtomic(dir_ + "/" + KeptManifestName(manifest_, next_sequence_++), ManifestText(manifest_));
  WriteManifest(dir_, m);
  manifest_ = std::move(m);
  ++manifest_writes_;
}

VersionSet::ReplicationPoint VersionSet::Replication() const {
  ReplicationPoint point{manifest_writes_, ManifestText(manifest_), {"HEADER"}, {}, wal_.bytes()};
  if (history_versions_ > 0) {
    // Past versions need the kept manifests and logs, and the segment files those name: every
    // finished segment and history file there is.
    for (const std::string& name : ListDir(dir_))
      if ((IsSegmentFileName(name) && !name.ends_with(".tmp")) || IsHistoryFileName(name)) point.files.push_back(name);
    return point;
  }
  // A file the manifest names that is not in the directory (of a collection this writer does not
  // hold, or dropped since the manifest) is listed cold: the copy keeps it if it has it.
  for (const ManifestCollection& mc : manifest_.collections) {
    for (const ManifestSegment& segment : mc.segments) {
      std::vector<std::string> names = SegmentFileNames(segment.id);
      if (!segment.deletions.empty()) names.push_back(segment.deletions);
      for (std::string& name : names) {
        if (name.ends_with(".tmp")) continue;
        (FileExists(dir_ + "/" + name) ? point.files : point.cold).push_back(std::move(name));
      }
    }
  }
  return point;
}

VersionSet::BackupPoint VersionSet::Backup() const {
  if (logging_) {
    ReplicationPoint point = Replication();
    return BackupPoint{version_, std::move(point.manifest), std::move(point.files), point.log_bytes, true};
  }
  std::optional<Manifest> on_disk = ReadManifest(dir_);
  BackupPoint point{version_, manifest_text_, {"HEADER"}, wal_offset_, (on_disk ? ManifestText(*on_disk) : "") == manifest_text_};
  for (const ManifestCollection& mc : manifest_.collections) {
    for (const ManifestSegment& segment : mc.segments) {
      std::vector<std::string> names = SegmentFileNames(segment.id);
      if (!segment.deletions.empty()) names.push_back(segment.deletions);
      for (std::string& name : names)
        if (!name.ends_with(".tmp") && FileExists(dir_ + "/" + name)) point.files.push_back(std::move(name));
    }
  }
  return point;
}

void VersionSet::Release(const std::vector<std::string>& names) {
  // Each was created before the last checkpoint and did not change since (the caller checkpoints
  // first otherwise), so the manifest's entry of that name is this collection's.
  for (const std::string& name : names) {
    auto entry = std::find_if(manifest_.collections.begin(), manifest_.collections.end(),
                              [&](const ManifestCollection& mc) { return mc.name == name; });
    if (entry != manifest_.collections.end()) state_.Release(name, entry->segments);
  }
}

void VersionSet::Hold(const std::vector<std::string>& names) {
  SnapshotPtr snap = Current();
  std::map<std::string, std::vector<std::pair<SegmentPtr, SegmentIndexesPtr>>> by_collection;
  std::vector<SealedToOpen> sealed;
  for (const std::string& name : names) {
    const std::vector<ManifestSegment>* cold = state_.ColdSegments(name);
    if (cold == nullptr) continue;
    by_collection[name];  // held even with no segment
    // Its schema as declared now: the log may have changed the manifest's.
    for (const ManifestSegment& ms : *cold) sealed.push_back({name, snap->collections.at(name)->schema.get(), &ms});
  }
  // Opened before anything changes: a missing or damaged file refuses the whole call.
  OpenSealed(sealed);
  for (SealedToOpen& s : sealed) by_collection[s.collection].emplace_back(std::move(s.segment), std::move(s.indexes));
  for (auto& [name, segments] : by_collection) state_.Hold(name, std::move(segments));
}

uint64_t VersionSet::BeginCompaction() {
  compacting_ = state_.NewSegmentId();
  return compacting_;
}

bool VersionSet::InstallCompaction(const CompactionJob& job, const CompactedSegment& out) {
  compacting_ = 0;
  if (!state_.InstallCompaction(job, out)) {
    if (logging_) RemoveUnnamedFiles(manifest_);
    return false;
  }
  if (!logging_) return true;
  // The manifest keeps its commit version: the log after it replays onto the output as it did onto
  // the inputs, since ops find rows by id. Rows deleted by then are in the output's bitmap.
  Manifest m = manifest_;
  m.next_segment_id = state_.next_segment_id();
  m.valid_from = std::max(m.commit_version, job.version);
  for (ManifestCollection& mc : m.collections) {
    if (mc.name != job.collection) continue;
    std::set<uint64_t> inputs;
    for (const SegmentRef& ref : job.inputs) inputs.insert(ref.segment->id());
    auto first = std::find_if(mc.segments.begin(), mc.segments.end(), [&](const ManifestSegment& s) { return inputs.count(s.id); });
    size_t at = size_t(first - mc.segments.begin());
    std::erase_if(mc.segments, [&](const ManifestSegment& s) { return inputs.count(s.id) > 0; });
    if (out.segment) {
      const Segment& segment = *out.segment;
      mc.segments.insert(mc.segments.begin() + std::ptrdiff_t(at), Entry(dir_, segment, segment.appended(), m.commit_version));
    }
  }
  CrashPoint("compaction-before-manifest");
  ReplaceManifest(std::move(m));
  CrashPoint("compaction-after-manifest");
  {
    std::lock_guard<std::mutex> lock(retired_mu_);
    for (const SegmentRef& ref : job.inputs) retired_.insert(ref.segment->id());
  }
  RemoveUnnamedFiles(manifest_);
  return true;
}

void VersionSet::AbandonCompaction(uint64_t output_id) {
  if (compacting_ == output_id) compacting_ = 0;
  if (logging_) RemoveUnnamedFiles(manifest_);
}

void VersionSet::RemoveUnnamedFiles(const Manifest& manifest) {
  std::set<std::string> named;
  if (compacting_ != 0)
    for (std::string& f : SegmentFileNames(compacting_)) named.insert(std::move(f));
  auto name_files_of = [&](const Manifest& m) {
    for (const ManifestCollection& c : m.collections) {
      for (const ManifestSegment& s : c.segments) {
        for (std::string& f : SegmentFileNames(s.id)) named.insert(std::move(f));
        if (!s.deletions.empty()) named.insert(s.deletions);
      }
    }
  };
  name_files_of(manifest);
  named.insert(kept_for_backup_.begin(), kept_for_backup_.end());
  // History: the kept manifests and logs the last history_versions_ versions need, and the files
  // those manifests name. Without history every kept file goes.
  if (history_versions_ > 0) {
    History history = History::List(dir_);
    uint64_t wanted = version_ >= history_versions_ ? version_ - history_versions_ + 1 : 0;
    std::vector<KeptManifest> kept;
    named.merge(history.Keep(std::max(wanted, history.OldestReadable()), &kept));
    for (const KeptManifest& m : kept)
      if (m.name != "MANIFEST") name_files_of(ReadManifestFile(dir_ + "/" + m.name));
  }
  for (const std::string& name : ListDir(dir_))
    if ((IsSegmentFileName(name) || IsHistoryFileName(name)) && !named.count(name)) RemoveFile(dir_ + "/" + name);
}

std::string VersionSet::Versions(uint64_t served, std::optional<uint64_t> pinned) const {
  History history = dir_.empty() ? History{} : History::List(dir_);
  // History is on when this writer keeps it, or (for readers) when the writer kept some.
  bool on = !dir_.empty() && (logging_ ? history_versions_ > 0 : history.manifests.size() > 1 || history.logs.size() > 1);
  uint64_t newest = std::max(served, history.manifests.empty() ? 0 : history.manifests.back().version);
  uint64_t oldest = history.OldestReadable();
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Member("commit_version", served);
    w.Key("oldest_readable");
    on ? w.UInt(oldest) : w.Null();
    w.Key("pinned");
    pinned ? w.UInt(*pinned) : w.Null();
    w.Key("readable");
    JsonWriter::Scope readable = w.Array();
    if (on)
      for (uint64_t v = oldest; v <= newest; ++v) w.UInt(v);
  });
}

}  // namespace tessera
