// Compaction: which segments of a collection to rewrite, and the rewrite. A rewrite copies the rows
// of a contiguous run of segments that are live at one version into one new segment (storage order
// kept, so /list's insertion order holds), leaving superseded and deleted rows behind. The writer
// swaps it in later (VersionSet::InstallCompaction), carrying over deletions made meanwhile.
//
// The policy, per collection (thresholds below, in compaction.cc):
//  - a sealed segment with at least kRewriteDeadFraction of its rows dead is rewritten alone;
//  - segments are levelled by live rows (level L holds fewer than kMergeBaseRows x 8^(L+1)), and a
//    contiguous run of at least kMergeFanIn sealed segments of level <= L merges into one (or of
//    two or three that fill half a merged segment), lowest level first, up to kMaxMergeInputs
//    segments and kMaxMergedRows / kMaxMergedVectorBytes, and
//    (automatically) not when one input holds most of the run's rows (kMaxMergeSkew), so every row
//    is rewritten about once per level (write amplification ~ levels, like an LSM tree).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/snapshot.h"
#include "tessera/cancel.h"

namespace tessera {

enum class CompactionScope {
  kAutomatic,   // the background policy
  kAllDead,     // POST /compact: also every sealed segment with any dead row
  kEverything,  // an in-memory store's POST /compact, under the writer lock: memory segments too
};

struct CompactionJob {
  std::string collection;
  CollectionSchemaPtr schema;      // the declarations the output's indexes are derived under
  std::vector<SegmentRef> inputs;  // contiguous in the collection, oldest first
  uint64_t version = 0;            // rows visible at this version are kept
  uint64_t output_id = 0;          // set by the writer before the rewrite
};

// The next job in snap, or nullopt when the collections are compact enough for scope.
std::optional<CompactionJob> PickCompaction(const Snapshot& snap, uint32_t dim, CompactionScope scope);

// The sealed segments of c that the background policy would rewrite as things stand (each in a run
// it would merge, or dead enough to rewrite alone): building their vector indexes can wait for the
// rewrite, whose output gets one.
std::set<uint64_t> AboutToBeRewritten(const CollectionState& c, uint32_t dim);

struct RowSource {
  uint32_t input;  // index into CompactionJob::inputs
  uint32_t row;
};

struct CompactedSegment {
  SegmentPtr segment;              // null when no input row was live
  std::vector<RowSource> sources;  // where each of its rows came from
  SegmentIndexesPtr indexes;       // its text, filter and id parts under the job's schema (saved beside it)
  uint64_t bytes = 0;              // vector and row bytes written
};

// Whether job's output, installed in c in place of its inputs, would itself be rewritten by the
// background policy as things stand.
bool RewrittenAgain(const CollectionState& c, const CompactionJob& job, const CompactedSegment& out, uint32_t dim);

// Copies the job's live rows into segment job.output_id; with dir set, persists it there and
// reopens it sealed (vectors mmap'd when mmap), else keeps it in memory. Throws Error(kCancelled)
// once stop is cancelled; files already written are then orphans the next cleanup removes.
CompactedSegment RewriteSegments(const CompactionJob& job, const std::string& dir, uint32_t dim, bool mmap, const CancelToken& stop);

// The approximate index of the largest input that kept every row (its rows are then a run of the
// output's, in order), for the output's graph to start from; none when no input qualifies.
IndexPart ReusableAnn(const CompactionJob& job, const CompactedSegment& out);

}  // namespace tessera
