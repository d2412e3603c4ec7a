#include "catalog/version_set.h"

#include <set>

#include "storage/file_names.h"
#include "util/byte_io.h"
#include "util/file_util.h"

namespace tessera {
namespace {

// Checkpoint once this many rows wait in memory segments or the log grows this large, bounding
// both recovery time and memory not backed by files.
constexpr uint64_t kCheckpointRows = 1 << 18;
constexpr uint64_t kCheckpointLogBytes = 256ull << 20;

bool AnyDeleted(const Segment& segment, uint32_t rows) {
  for (uint32_t r = 0; r < rows; ++r)
    if (segment.deleted(r)) return true;
  return false;
}

}  // namespace

VersionSet::VersionSet(std::string dir, uint32_t dim, bool mmap, bool logging, ThreadPool& pool)
    : dir_(std::move(dir)), dim_(dim), mmap_(mmap), logging_(logging), pool_(pool), state_(dim, 1) {}

void VersionSet::Recover() {
  if (dir_.empty()) return;
  if (std::optional<Manifest> manifest = ReadManifest(dir_)) {
    state_ = StoreState(dim_, manifest->next_segment_id);
    version_ = manifest->commit_version;
    for (ManifestCollection& c : manifest->collections) {
      state_.AddCollection(c.name, std::move(c.schema));
      for (const ManifestSegment& ms : c.segments) state_.AdoptSealedSegment(c.name, OpenSealed(ms.id, ms.deletions));
    }
    for (const auto& [name, target] : manifest->aliases) state_.SetAlias(name, target);
  }
  Wal::Replay(WalPath(dir_), logging_, [&](std::string_view payload) {
    ByteReader r(payload);
    uint64_t version = r.Fixed<uint64_t>();
    if (version <= version_) return;  // already part of the manifest's checkpoint
    state_.Apply(DecodeOp(r.rest(), dim_), version);
    version_ = version;
  });
  if (logging_) wal_.OpenForAppend(WalPath(dir_));
}

uint64_t VersionSet::LogAndApply(const Op& op) {
  uint64_t version = version_ + 1;
  if (logging_) {
    std::string payload;
    PutFixed<uint64_t>(&payload, version);
    payload += EncodeOp(op, dim_);
    wal_.Append(payload);
  }
  uint64_t changed = state_.Apply(op, version);
  version_ = version;
  return changed;
}

void VersionSet::Sync() {
  if (logging_) wal_.Sync();
}

bool VersionSet::CheckpointDue() const {
  return logging_ && (state_.memory_rows() >= kCheckpointRows || state_.MemorySegmentNearlyFull() || wal_.bytes() >= kCheckpointLogBytes);
}

SegmentPtr VersionSet::OpenSealed(uint64_t id, const std::string& deletions) {
  SegmentPtr segment = Segment::OpenSealed(dir_, id, dim_, mmap_, deletions);
  segment->AttachColumns(OpenSegmentColumns(dir_, *segment, logging_));
  return segment;
}

void VersionSet::SealMemorySegments(const Snapshot& snap) {
  for (const auto& [name, c] : snap.collections) {
    for (const SegmentRef& ref : c->segments) {
      if (ref.rows == 0 || ref.segment->sealed()) continue;
      ref.segment->Persist(dir_, ref.rows);
      SegmentPtr sealed = OpenSealed(ref.segment->id(), "");
      sealed->CopyDeletionsFrom(*ref.segment, ref.rows);
      state_.ReplaceSegment(name, ref.segment, std::move(sealed));
    }
  }
}

void VersionSet::Checkpoint() {
  if (!logging_) return;
  SealMemorySegments(*Current());
  SnapshotPtr snap = Current();
  Manifest m;
  m.commit_version = version_;
  m.next_segment_id = state_.next_segment_id();
  m.aliases = snap->aliases;
  for (const auto& [name, c] : snap->collections) {
    ManifestCollection& mc = m.collections.emplace_back(ManifestCollection{name, *c->schema, {}});
    for (const SegmentRef& ref : c->segments) {
      if (ref.rows == 0) continue;
      ManifestSegment ms{ref.segment->id(), ref.rows, ""};
      if (AnyDeleted(*ref.segment, ref.rows)) {
        ms.deletions = DeletionsFileName(ms.id, version_);
        ref.segment->PersistDeletions(dir_ + "/" + ms.deletions, ref.rows, version_);
      }
      mc.segments.push_back(ms);
    }
  }
  WriteManifest(dir_, m);
  wal_.Reset();
  RemoveUnnamedFiles(m);
}

void VersionSet::RemoveUnnamedFiles(const Manifest& manifest) {
  std::set<std::string> named;
  for (const ManifestCollection& c : manifest.collections) {
    for (const ManifestSegment& s : c.segments) {
      for (std::string& f : SegmentFileNames(s.id)) named.insert(std::move(f));
      if (!s.deletions.empty()) named.insert(s.deletions);
    }
  }
  for (const std::string& name : ListDir(dir_))
    if (IsSegmentFileName(name) && !named.count(name)) RemoveFile(dir_ + "/" + name);
}

}  // namespace tessera
