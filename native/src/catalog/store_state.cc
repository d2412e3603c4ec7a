#include "catalog/store_state.h"

#include <algorithm>
#include <set>

#include "tessera/error.h"
#include "util/clock.h"

namespace tessera {
namespace {

// Memory segments start small so an idle collection costs little, then double up to the cap.
// A memory segment reserves room for this many rows up front (address space, committed as rows
// arrive), so a checkpoint seals large segments and each gets one index rather than many small
// ones; wide vectors reserve fewer rows so the reservation stays within kSegmentReserveBytes.
constexpr uint32_t kMinSegmentRows = 1 << 12;
constexpr uint32_t kMaxSegmentRows = 1 << 18;
constexpr size_t kSegmentReserveBytes = size_t(1) << 30;

}  // namespace

void ValidateName(const std::string& name, const char* what) {
  bool ok = !name.empty() && name.size() <= 128 && name[0] != '.';
  for (char c : name)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.');
  if (!ok)
    throw BadRequest(std::string("invalid ") + what + " name '" + name +
                     "': use 1 to 128 letters, digits, '_', '-' or '.', not starting with '.'");
}

StoreState::Collection* StoreState::Find(const std::string& name) {
  auto it = collections_.find(name);
  return it == collections_.end() ? nullptr : it->second.get();
}

const StoreState::Collection* StoreState::Find(const std::string& name) const {
  auto it = collections_.find(name);
  return it == collections_.end() ? nullptr : it->second.get();
}

StoreState::Collection& StoreState::GetOrCreate(const std::string& name) {
  auto& slot = collections_[name];
  if (!slot) {
    slot = std::make_unique<Collection>();
    slot->name = name;
  }
  return *slot;
}

void StoreState::Validate(const Op& op) const {
  auto must_exist = [&](const std::string& name) -> const Collection& {
    const Collection* c = Find(name);
    if (c == nullptr) throw NotFound("collection '" + name + "' does not exist");
    return *c;
  };
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, CreateCollectionOp>) {
          ValidateName(o.name, "collection");
          if (aliases_.count(o.name)) throw BadRequest("'" + o.name + "' is an alias; create and drop take a concrete collection name");
        } else if constexpr (std::is_same_v<T, DropCollectionOp>) {
          if (aliases_.count(o.name)) throw BadRequest("'" + o.name + "' is an alias; create and drop take a concrete collection name");
          must_exist(o.name);
        } else if constexpr (std::is_same_v<T, SetFilterIndexOp>) {
          if (aliases_.count(o.name)) throw BadRequest("'" + o.name + "' is an alias; filter-index takes a concrete collection name");
          must_exist(o.name);
        } else if constexpr (std::is_same_v<T, SetFtsSchemaOp>) {
          if (aliases_.count(o.name)) throw BadRequest("'" + o.name + "' is an alias; fts-schema takes a concrete collection name");
          must_exist(o.name);
        } else if constexpr (std::is_same_v<T, PutMetaOp> || std::is_same_v<T, SetVectorNamesOp>) {
          must_exist(o.name);
        } else if constexpr (std::is_same_v<T, PutAliasOp>) {
          ValidateName(o.name, "alias");
          if (collections_.count(o.name)) throw BadRequest("'" + o.name + "' is a collection; an alias needs a name of its own");
          if (aliases_.count(o.target))
            throw BadRequest("alias target '" + o.target + "' is itself an alias; aliases resolve one hop only");
          if (!collections_.count(o.target))
            throw BadRequest("alias target '" + o.target + "' does not exist; create the collection first");
        } else if constexpr (std::is_same_v<T, DropAliasOp>) {
          if (!aliases_.count(o.name)) throw NotFound("alias '" + o.name + "' does not exist");
        } else if constexpr (std::is_same_v<T, UpsertOp>) {
          ValidateName(o.collection, "collection");
          const Collection* c = Find(o.collection);
          if (c && !c->resident) throw NotResidentError({c->name});
          for (size_t i = 0; i < o.records.size(); ++i) {
            for (const NamedVectorInput& nv : o.records[i].named) {
              const std::vector<std::string>* declared_names = c ? &c->schema->vector_names : nullptr;
              bool declared = declared_names && std::find(declared_names->begin(), declared_names->end(), nv.name) != declared_names->end();
              if (!declared)
                throw BadRequest("records[" + std::to_string(i) + "] (id '" + o.records[i].id + "'): named vector '" + nv.name +
                                 "' is not declared; declare it with POST /collections/" + o.collection + "/vector-names first");
            }
          }
        } else if constexpr (std::is_same_v<T, DeleteOp>) {
          if (!must_exist(o.collection).resident) throw NotResidentError({o.collection});
        }
      },
      op);
}

LiveIds& StoreState::WriterIds(Collection& c) {
  if (c.ids_mapped) return c.ids;
  // A failure part way leaves ids_mapped false; the next call puts every row again.
  c.ids.Reserve(c.rows - c.dead_rows);
  for (const Slot& slot : c.segments) c.ids.PutLiveRows(*slot.segment);  // oldest first: a later row wins
  c.ids_mapped = true;
  return c.ids;
}

void StoreState::PrepareApply(const Op& op) {
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        Collection* c = nullptr;
        if constexpr (std::is_same_v<T, UpsertOp>) c = o.records.empty() ? nullptr : Find(o.collection);
        if constexpr (std::is_same_v<T, DeleteOp>) c = o.ids.empty() ? nullptr : Find(o.collection);
        if (c != nullptr && c->resident) WriterIds(*c);
      },
      op);
}

// The memory segment the record goes to: the last one while it has room for the row and its
// named vectors, else a new one, so Append can never fail after validation.
Segment& StoreState::AppendTarget(Collection& c, const RecordInput& rec) {
  if (!c.segments.empty() && c.segments.back().segment->CanAppend(rec)) return *c.segments.back().segment;
  size_t row_bytes = std::max<size_t>(1, size_t(dim_) * sizeof(float));
  uint32_t capacity = uint32_t(std::clamp<size_t>(kSegmentReserveBytes / row_bytes, kMinSegmentRows, kMaxSegmentRows));
  c.segments.push_back({Segment::NewMemory(next_segment_id_++, dim_, capacity, /*recycled=*/true), SegmentIndexes::Flat()});
  return *c.segments.back().segment;
}

uint64_t StoreState::Apply(const Op& op, uint64_t version) {
  uint64_t count = 0;
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, CreateCollectionOp>) {
          GetOrCreate(o.name).rows_changed = true;
        } else if constexpr (std::is_same_v<T, DropCollectionOp>) {
          collections_.erase(o.name);
          for (auto it = aliases_.begin(); it != aliases_.end();) it = it->second == o.name ? aliases_.erase(it) : std::next(it);
        } else if constexpr (std::is_same_v<T, PutMetaOp>) {
          Collection& c = *Find(o.name);
          EditSchema(c, [&](CollectionSchema& schema) { schema.meta = o.meta; });
          Touch(c);
        } else if constexpr (std::is_same_v<T, SetVectorNamesOp>) {
          Collection& c = *Find(o.name);
          EditSchema(c, [&](CollectionSchema& schema) { schema.vector_names = o.names; });
          Touch(c);
        } else if constexpr (std::is_same_v<T, SetFilterIndexOp>) {
          Collection& c = *Find(o.name);
          EditSchema(c, [&](CollectionSchema& schema) { schema.filter_index = o.fields; });
          // Freeze() indexes every sealed segment under the new declaration.
          for (Slot& slot : c.segments) slot.indexes = slot.indexes->WithFilter(nullptr);
          Touch(c);
        } else if constexpr (std::is_same_v<T, SetFtsSchemaOp>) {
          Collection& c = *Find(o.name);
          EditSchema(c, [&](CollectionSchema& schema) { schema.fts = o.fields; });
          // Freeze() indexes every stored row under the new schema.
          for (Slot& slot : c.segments) slot.indexes = slot.indexes->WithText(nullptr);
          Touch(c);
        } else if constexpr (std::is_same_v<T, PutAliasOp>) {
          aliases_[o.name] = o.target;
        } else if constexpr (std::is_same_v<T, DropAliasOp>) {
          aliases_.erase(o.name);
        } else if constexpr (std::is_same_v<T, UpsertOp>) {
          Collection& c = GetOrCreate(o.collection);
          if (!c.resident) {
            cold_rows_logged_.insert(c.name);
            return;
          }
          c.rows_changed = true;
          for (const RecordInput& rec : o.records) {
            LiveIds& ids = WriterIds(c);
            if (std::optional<RowRef> old = ids.Find(rec.id)) {
              old->segment->MarkDeleted(old->row, version);
              ++c.dead_rows;
            }
            Segment& target = AppendTarget(c, rec);
            uint32_t row = target.Append(rec, o.floats);
            ids.Put(RowRef{&target, row});
            ++c.rows;
          }
          count = o.records.size();
          Touch(c);
        } else if constexpr (std::is_same_v<T, DeleteOp>) {
          Collection& c = *Find(o.collection);
          if (!c.resident) {
            cold_rows_logged_.insert(c.name);
            return;
          }
          c.rows_changed = true;
          for (const std::string& id : o.ids) {
            LiveIds& ids = WriterIds(c);
            std::optional<RowRef> live = ids.Find(id);
            if (!live) continue;
            live->segment->MarkDeleted(live->row, version);
            ids.Erase(id);
            ++c.dead_rows;
            ++count;
          }
          Touch(c);
        }
      },
      op);
  return count;
}

SnapshotPtr StoreState::Freeze(uint64_t version, ThreadPool* pool) {
  struct IndexJob {
    const Collection* collection;
    Slot* slot;  // the segment vectors do not grow while the jobs run
  };
  auto lacks_text = [](const Collection& c, const Slot& slot) {
    const SegmentTextPtr& text = slot.indexes->text();
    return !c.schema->fts.empty() && (!text || text->rows() < slot.segment->appended());
  };
  std::vector<IndexJob> jobs;
  for (auto& [name, c] : collections_) {
    if (c->frozen) continue;
    for (Slot& slot : c->segments)
      if (lacks_text(*c, slot) || LacksSealedIndexes(*c, slot)) jobs.push_back({c.get(), &slot});
  }
  auto index = [&](size_t i) {
    const Collection& c = *jobs[i].collection;
    Slot& slot = *jobs[i].slot;
    const Segment& segment = *slot.segment;
    if (lacks_text(c, slot))
      slot.indexes = slot.indexes->WithText(SegmentText::Extend(slot.indexes->text(), segment, segment.appended(), c.schema->fts));
    if (LacksSealedIndexes(c, slot)) slot.indexes = SealedIndexes(c, segment, slot.indexes);
  };
  if (pool && jobs.size() > 1)
    pool->ParallelFor(jobs.size(), index);
  else
    for (size_t i = 0; i < jobs.size(); ++i) index(i);

  auto snap = std::make_shared<Snapshot>();
  snap->version = version;
  snap->aliases = aliases_;
  for (auto& [name, c] : collections_) {
    if (!c->frozen) {
      auto state = std::make_shared<CollectionState>();
      state->name = c->name;
      state->schema = c->schema;
      for (const Slot& slot : c->segments)
        state->segments.push_back({slot.segment, slot.segment->appended(), slot.segment->deleted_rows(), slot.indexes});
      state->rows = c->rows;
      state->dead_rows = c->dead_rows;
      state->live_rows = c->rows - c->dead_rows;
      state->live_id_table_bytes = c->ids.bytes();
      state->resident = c->resident;
      state->last_used_us = c->last_used_us;
      c->frozen = std::move(state);
    }
    snap->collections[name] = c->frozen;
  }
  return snap;
}

void StoreState::AddCollection(const std::string& name, CollectionSchema schema, bool resident, std::vector<ManifestSegment> cold) {
  Collection& c = GetOrCreate(name);
  c.schema = std::make_shared<const CollectionSchema>(std::move(schema));
  c.resident = resident;
  c.cold = std::move(cold);
}

bool StoreState::RowsChangedSinceCheckpoint(const std::string& name) const {
  const Collection* c = Find(name);
  return c != nullptr && c->rows_changed;
}

void StoreState::MarkCheckpointed() {
  for (auto& [name, c] : collections_) c->rows_changed = false;
}

const std::vector<ManifestSegment>* StoreState::ColdSegments(const std::string& name) const {
  const Collection* c = Find(name);
  return c != nullptr && !c->resident ? &c->cold : nullptr;
}

void StoreState::Release(const std::string& name, std::vector<ManifestSegment> cold) {
  Collection* c = Find(name);
  if (c == nullptr || !c->resident) return;
  if (c->rows_changed) throw std::logic_error("releasing collection '" + name + "' whose rows changed since the last checkpoint");
  c->segments.clear();
  c->ids = LiveIds();
  c->ids_mapped = false;
  c->rows = c->dead_rows = 0;
  c->resident = false;
  c->cold = std::move(cold);
  Touch(*c);
}

void StoreState::Hold(const std::string& name, std::vector<std::pair<SegmentPtr, SegmentIndexesPtr>> sealed) {
  Collection* c = Find(name);
  if (c == nullptr || c->resident) return;
  c->resident = true;
  c->cold.clear();
  for (auto& [segment, indexes] : sealed) AdoptSealedSegment(name, std::move(segment), std::move(indexes));
  c->last_used_us->store(NowMicros(), std::memory_order_relaxed);
  Touch(*c);
}

void StoreState::NoteUse(const Op& op) {
  const std::string* name = nullptr;
  if (const auto* upsert = std::get_if<UpsertOp>(&op)) name = &upsert->collection;
  if (const auto* del = std::get_if<DeleteOp>(&op)) name = &del->collection;
  if (Collection* c = name ? Find(*name) : nullptr) c->last_used_us->store(NowMicros(), std::memory_order_relaxed);
}

bool StoreState::LacksSealedIndexes(const Collection& c, const Slot& slot) {
  return slot.segment->sealed() && (!slot.indexes->ids() || (!c.schema->filter_index.empty() && !slot.indexes->filter()));
}

SegmentIndexesPtr StoreState::SealedIndexes(const Collection& c, const Segment& segment, const SegmentIndexesPtr& base) {
  SegmentIndexesPtr indexes = base;
  const std::vector<FilterIndexField>& fields = c.schema->filter_index;
  if (!fields.empty() && !indexes->filter()) indexes = indexes->WithFilter(SegmentFilterIndex::Build(segment, fields));
  if (!indexes->ids()) indexes = indexes->WithIds(IdIndex::Build(segment));
  return indexes;
}

void StoreState::AdoptSealedSegment(const std::string& collection, SegmentPtr segment, SegmentIndexesPtr indexes) {
  Collection& c = *Find(collection);
  c.rows += segment->appended();
  c.dead_rows += segment->deleted_rows();
  if (c.ids_mapped) {
    c.ids.Reserve(c.ids.size() + segment->appended() - segment->deleted_rows());  // one growth per segment, not log(rows)
    c.ids.PutLiveRows(*segment);
  }
  c.segments.push_back({std::move(segment), std::move(indexes)});
  Touch(c);
}

void StoreState::ReplaceSegment(const std::string& collection, const SegmentPtr& memory_segment, SegmentPtr sealed) {
  Collection& c = *Find(collection);
  for (Slot& slot : c.segments) {
    if (slot.segment != memory_segment) continue;
    // The sealed segment holds the same rows, so its postings carry over; Freeze() adds the rest.
    slot.segment = std::move(sealed);
    if (c.ids_mapped) c.ids.PutLiveRows(*slot.segment);
    break;
  }
  Touch(c);
}

bool StoreState::InstallCompaction(const CompactionJob& job, const CompactedSegment& out) {
  Collection* c = Find(job.collection);
  if (c == nullptr || job.inputs.empty()) return false;
  auto first = std::find_if(c->segments.begin(), c->segments.end(), [&](const Slot& s) { return s.segment == job.inputs[0].segment; });
  if (c->segments.end() - first < std::ptrdiff_t(job.inputs.size())) return false;
  // Inputs the job read fewer rows of than they now hold (a memory segment appended to since)
  // would lose rows: refused.
  for (size_t i = 0; i < job.inputs.size(); ++i)
    if (first[i].segment != job.inputs[i].segment || first[i].segment->appended() != job.inputs[i].rows) return false;
  uint64_t input_rows = 0;
  for (const SegmentRef& ref : job.inputs) input_rows += ref.segment->appended();
  if (out.segment) {
    Segment& segment = *out.segment;
    for (uint32_t r = 0; r < segment.appended(); ++r) {
      const RowSource& from = out.sources[r];
      Segment& input = *job.inputs[from.input].segment;
      uint64_t deleted_at = input.deleted_at(from.row);
      if (deleted_at != kNeverDeleted) {
        segment.MarkDeleted(r, deleted_at);
        continue;
      }
      if (c->ids_mapped && c->ids.Find(segment.row_id(r))) c->ids.Put(RowRef{&segment, r});
    }
    if (c->ids_mapped) segment.ReleaseRecordPages();  // the live ids' pass read every id
  }
  uint64_t dropped = input_rows - (out.segment ? out.segment->appended() : 0);
  c->rows -= dropped;
  c->dead_rows -= dropped;
  auto at = c->segments.erase(first, first + std::ptrdiff_t(job.inputs.size()));
  if (out.segment) {
    // Declarations changed since the job began: Freeze() derives the output's text and filter
    // indexes again.
    SegmentIndexesPtr indexes = out.indexes;
    if (c->schema != job.schema) indexes = indexes->WithText(nullptr)->WithFilter(nullptr);
    c->segments.insert(at, Slot{out.segment, std::move(indexes)});
  }
  Touch(*c);
  return true;
}

bool StoreState::AttachVectorIndexes(const std::string& collection, uint64_t segment_id, VectorIndexPtr first_pass, VectorIndexPtr ann) {
  Collection* c = Find(collection);
  if (c == nullptr) return false;
  for (Slot& slot : c->segments) {
    if (slot.segment->id() != segment_id || !slot.segment->sealed()) continue;
    slot.indexes = slot.indexes->WithVectorIndexes(std::move(first_pass), std::move(ann));
    Touch(*c);
    return true;
  }
  return false;
}

uint64_t StoreState::memory_rows() const {
  uint64_t rows = 0;
  for (const auto& [name, c] : collections_)
    for (const Slot& slot : c->segments)
      if (!slot.segment->sealed()) rows += slot.segment->appended();
  return rows;
}

uint32_t StoreState::largest_memory_segment() const {
  uint32_t rows = 0;
  for (const auto& [name, c] : collections_)
    for (const Slot& slot : c->segments)
      if (!slot.segment->sealed()) rows = std::max(rows, slot.segment->appended());
  return rows;
}

bool StoreState::MemorySegmentMostlyDead() const {
  constexpr uint32_t kMinRows = 1 << 14;
  for (const auto& [name, c] : collections_)
    for (const Slot& slot : c->segments)
      if (!slot.segment->sealed() && slot.segment->appended() >= kMinRows && slot.segment->deleted_rows() * 2 >= slot.segment->appended())
        return true;
  return false;
}

uint64_t StoreState::vector_bytes() const {
  uint64_t floats = 0;
  for (const auto& [name, c] : collections_)
    for (const Slot& slot : c->segments) {
      const Segment& segment = *slot.segment;
      floats += uint64_t(segment.appended()) * segment.dim() * (1 + segment.named_columns().size());
    }
  return floats * sizeof(float);
}

bool StoreState::MemorySegmentNearlyFull() const {
  for (const auto& [name, c] : collections_)
    for (const Slot& slot : c->segments)
      if (!slot.segment->sealed() && slot.segment->appended() >= slot.segment->capacity() / 8 * 7) return true;
  return false;
}

}  // namespace tessera
