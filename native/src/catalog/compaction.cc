#include "catalog/compaction.h"

#include <algorithm>
#include <set>

#include "catalog/sealed_indexes.h"

namespace tessera {
namespace {

// A sealed segment this dead is rewritten on its own: scans stop paying for its dead rows and its
// disk share shrinks, at the cost of one rewrite per ~30% of its rows overwritten.
constexpr double kRewriteDeadFraction = 0.3;
// Levels: level L holds segments of fewer than kMergeBaseRows x kLevelFactor^(L+1) live rows.
constexpr uint64_t kMergeBaseRows = 4096;
constexpr uint64_t kLevelFactor = 8;
constexpr int kLevels = 4;
// A run merges once it has this many segments, and takes at most kMaxMergeInputs.
constexpr size_t kMergeFanIn = 4;
constexpr size_t kMaxMergeInputs = 16;
// An automatic merge whose largest input holds more than this share of its live rows would mostly
// rewrite that one input (a big segment and three small ones after a few overwrites): it waits
// until the small ones have peers of their own size. Each row is then rewritten about once per level, and
// an incremental backup after a small change copies about that change.
constexpr double kMaxMergeSkew = 0.5;
// A merged segment is built in memory before it is written, and gets one vector index: both
// bound its size.
constexpr uint64_t kMaxMergedRows = uint64_t(1) << 22;
constexpr uint64_t kMaxMergedVectorBytes = uint64_t(2) << 30;

uint64_t LiveRows(const SegmentRef& ref) { return ref.rows - ref.deleted_rows; }

bool Skewed(const std::vector<SegmentRef>& segments, size_t begin, size_t n) {
  uint64_t total = 0, largest = 0;
  for (size_t i = begin; i < begin + n; ++i) {
    total += LiveRows(segments[i]);
    largest = std::max(largest, LiveRows(segments[i]));
  }
  return double(largest) > kMaxMergeSkew * double(total);
}

int Level(const SegmentRef& ref) {
  int level = 0;
  for (uint64_t bound = kMergeBaseRows * kLevelFactor; LiveRows(ref) >= bound && level < kLevels; bound *= kLevelFactor) ++level;
  return level;
}

bool Eligible(const SegmentRef& ref, CompactionScope scope) {
  return ref.rows > 0 && (scope == CompactionScope::kEverything || ref.segment->sealed());
}

bool DeadEnough(const SegmentRef& ref, CompactionScope scope) {
  if (ref.deleted_rows == 0) return false;
  return scope != CompactionScope::kAutomatic || double(ref.deleted_rows) >= kRewriteDeadFraction * double(ref.rows);
}

CompactionJob Job(const CollectionState& c, std::vector<SegmentRef> inputs, uint64_t version) {
  return CompactionJob{c.name, c.schema, std::move(inputs), version, 0};
}

uint64_t MaxMergedRows(uint32_t dim) {
  return std::min(kMaxMergedRows, kMaxMergedVectorBytes / std::max<uint64_t>(1, uint64_t(dim) * sizeof(float)));
}

struct Prefix {
  size_t n = 0;
  uint64_t rows = 0;  // live rows of its n segments
};

// The longest prefix of segments[begin, end) that one merged segment can hold, at most
// kMaxMergeInputs long: rows and vector bytes bounded, named-vector columns at most a segment's.
Prefix MergeablePrefix(const std::vector<SegmentRef>& segments, size_t begin, size_t end, uint32_t dim) {
  const uint64_t max_rows = MaxMergedRows(dim);
  std::set<std::string> names;
  Prefix prefix;
  for (size_t i = begin; i < end && prefix.n < kMaxMergeInputs; ++i, ++prefix.n) {
    std::set<std::string> with = names;
    for (const NamedColumn* c : segments[i].segment->named_columns()) with.insert(c->name);
    if (prefix.rows + LiveRows(segments[i]) > max_rows || with.size() > kMaxNamedVectors) break;
    prefix.rows += LiveRows(segments[i]);
    names = std::move(with);
  }
  return prefix;
}

// A window merges with kMergeFanIn inputs, or with two or three that fill half a merged segment:
// segments that large could not find four peers under the bound, and a large store would otherwise
// stop at a quarter of it, each of its many segments a walk per query.
bool EnoughInputs(const Prefix& prefix, uint32_t dim) {
  return prefix.n >= kMergeFanIn || (prefix.n >= 2 && 2 * prefix.rows > MaxMergedRows(dim));
}

// Calls take(begin, n) for each run of segments the policy would rewrite at scope, in the order
// it would pick them (a dead segment alone first, then merges lowest level first), until take
// answers true. Runs of one level do not overlap; a higher level's may hold a lower one's.
template <typename Take>
void ForEachPick(const std::vector<SegmentRef>& segments, uint32_t dim, CompactionScope scope, Take take) {
  for (size_t i = 0; i < segments.size(); ++i)
    if (Eligible(segments[i], scope) && DeadEnough(segments[i], scope) && take(i, size_t(1))) return;
  for (int level = 0; level <= kLevels; ++level) {
    for (size_t begin = 0; begin < segments.size();) {
      size_t end = begin;
      while (end < segments.size() && Eligible(segments[end], scope) && Level(segments[end]) <= level) ++end;
      // Slide along the run until a window of enough inputs fits one merged segment.
      for (size_t start = begin; start + 2 <= end;) {
        Prefix prefix = MergeablePrefix(segments, start, end, dim);
        if (EnoughInputs(prefix, dim) && (scope != CompactionScope::kAutomatic || !Skewed(segments, start, prefix.n))) {
          if (take(start, prefix.n)) return;
          start += prefix.n;
        } else {
          ++start;
        }
      }
      begin = end + 1;
    }
  }
}

std::optional<CompactionJob> PickInCollection(const CollectionState& c, uint64_t version, uint32_t dim, CompactionScope scope) {
  std::optional<CompactionJob> job;
  ForEachPick(c.segments, dim, scope, [&](size_t begin, size_t n) {
    job = Job(c, {c.segments.begin() + begin, c.segments.begin() + begin + n}, version);
    return true;
  });
  return job;
}

std::set<uint64_t> Rewritten(const std::vector<SegmentRef>& segments, uint32_t dim) {
  std::set<uint64_t> ids;
  ForEachPick(segments, dim, CompactionScope::kAutomatic, [&](size_t begin, size_t n) {
    for (size_t i = begin; i < begin + n; ++i) ids.insert(segments[i].segment->id());
    return false;
  });
  return ids;
}

}  // namespace

std::optional<CompactionJob> PickCompaction(const Snapshot& snap, uint32_t dim, CompactionScope scope) {
  for (const auto& [name, c] : snap.collections)
    if (std::optional<CompactionJob> job = PickInCollection(*c, snap.version, dim, scope)) return job;
  return std::nullopt;
}

CompactedSegment RewriteSegments(const CompactionJob& job, const std::string& dir, uint32_t dim, bool mmap, const CancelToken& stop) {
  CompactedSegment out;
  uint64_t live = 0;
  for (const SegmentRef& ref : job.inputs)
    for (uint32_t r = 0; r < ref.rows; ++r) live += ref.segment->visible(r, job.version) ? 1 : 0;
  if (live == 0) return out;
  SegmentPtr segment = Segment::NewMemory(job.output_id, dim, uint32_t(live));
  out.sources.reserve(live);
  for (uint32_t i = 0; i < job.inputs.size(); ++i) {
    const SegmentRef& ref = job.inputs[i];
    for (uint32_t r = 0; r < ref.rows; ++r) {
      if (!ref.segment->visible(r, job.version)) continue;
      if ((out.sources.size() & 4095) == 0) stop.ThrowIfCancelled();
      segment->AppendCopy(*ref.segment, r);
      out.sources.push_back({i, r});
      out.bytes += ref.segment->row_id(r).size() + ref.segment->row_attrs(r).size();
    }
  }
  out.bytes += live * dim * sizeof(float) * (1 + segment->named_columns().size());
  if (!dir.empty()) {
    stop.ThrowIfCancelled();
    segment->Persist(dir, uint32_t(live));
    segment = Segment::OpenSealed(dir, job.output_id, dim, mmap, "", /*may_write=*/true);
  }
  const CollectionSchema& schema = *job.schema;
  // A sealed output gets its text, filter and id parts as any sealed segment does, saved beside it;
  // an in-memory store's output is a memory segment, which carries postings only.
  if (segment->sealed()) {
    out.indexes = OpenSealedSegmentIndexes(dir, *segment, schema, /*may_write=*/true);
  } else {
    out.indexes = SegmentIndexes::Flat();
    if (!schema.fts.empty()) out.indexes = out.indexes->WithText(SegmentText::Extend(nullptr, *segment, uint32_t(live), schema.fts));
  }
  out.segment = std::move(segment);
  return out;
}

std::set<uint64_t> AboutToBeRewritten(const CollectionState& c, uint32_t dim) { return Rewritten(c.segments, dim); }

bool RewrittenAgain(const CollectionState& c, const CompactionJob& job, const CompactedSegment& out, uint32_t dim) {
  if (!out.segment || job.inputs.empty()) return false;
  const uint64_t first = job.inputs.front().segment->id();
  auto at = std::find_if(c.segments.begin(), c.segments.end(), [&](const SegmentRef& ref) { return ref.segment->id() == first; });
  if (at == c.segments.end() || size_t(c.segments.end() - at) < job.inputs.size()) return false;
  std::vector<SegmentRef> after(c.segments.begin(), at);
  after.push_back(SegmentRef{out.segment, uint32_t(out.sources.size()), 0, out.indexes});
  after.insert(after.end(), at + job.inputs.size(), c.segments.end());
  return Rewritten(after, dim).count(out.segment->id()) > 0;
}

IndexPart ReusableAnn(const CompactionJob& job, const CompactedSegment& out) {
  // Rows are copied input by input in row order: an input kept every row when its count of
  // sources equals its rows, and they start where its first source is.
  std::vector<uint32_t> kept(job.inputs.size(), 0), first(job.inputs.size(), 0);
  for (uint32_t i = uint32_t(out.sources.size()); i-- > 0;) {
    ++kept[out.sources[i].input];
    first[out.sources[i].input] = i;
  }
  IndexPart best;
  uint32_t best_rows = 0;
  for (size_t k = 0; k < job.inputs.size(); ++k) {
    const SegmentRef& in = job.inputs[k];
    if (!in.segment->sealed() || in.rows == 0 || kept[k] != in.rows || in.rows <= best_rows || !in.indexes->ann()) continue;
    best = {in.indexes->ann().get(), first[k]};
    best_rows = uint32_t(in.rows);
  }
  return best;
}

}  // namespace tessera
