// Checks compaction's switch on a store state in memory: a rewrite keeps exactly the rows live at
// its version in storage order; deletions and overwrites made while it ran are carried over onto
// the output; ids point at the output's rows; a job whose inputs are gone changes nothing; the
// policy picks dead segments and runs of small ones, and tells which segments (and which merged
// segment) it is about to rewrite. Prints "N passed, M failed".
#include "catalog/compaction.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/store_state.h"
#include "check.h"
#include "index/segment_indexes.h"

namespace tessera {
namespace {

using test::Check;

constexpr uint32_t kDim = 2;
// A memory segment of kDim-wide vectors holds this many rows; filling one makes later appends go
// to the next, as they go to a memory segment while sealed inputs are being compacted.
constexpr int kSegmentRows = 1 << 18;

UpsertOp Records(const std::string& prefix, int begin, int end, float value) {
  UpsertOp op{"c", {}, {}};
  for (int i = begin; i < end; ++i) {
    RecordInput rec;
    rec.id = prefix + std::to_string(i);
    rec.vector_offset = int64_t(op.floats.size());
    op.floats.push_back(float(i));
    op.floats.push_back(value);
    op.records.push_back(std::move(rec));
  }
  return op;
}

// The ids a snapshot sees in collection c, in storage order, with their vectors' second value.
std::vector<std::string> Visible(const Snapshot& snap) {
  std::vector<std::string> out;
  for (const SegmentRef& ref : snap.collections.at("c")->segments)
    for (uint32_t r = 0; r < ref.rows; ++r)
      if (ref.segment->visible(r, snap.version))
        out.push_back(std::string(ref.segment->row_id(r)) + "=" + std::to_string(int(ref.segment->vector(r)[1])));
  return out;
}

// Picks the job an in-memory store's POST /compact would run first in snap and rewrites it.
std::optional<std::pair<CompactionJob, CompactedSegment>> PickAndRewrite(StoreState& state, const Snapshot& snap) {
  std::optional<CompactionJob> job = PickCompaction(snap, kDim, CompactionScope::kEverything);
  if (!job) return std::nullopt;
  job->output_id = state.NewSegmentId();
  CancelToken never;
  CompactedSegment out = RewriteSegments(*job, "", kDim, false, never);
  return std::make_pair(std::move(*job), std::move(out));
}

void CarriesOverWhatHappenedMeanwhile() {
  StoreState state(kDim, 1);
  uint64_t version = 0;
  state.Apply(CreateCollectionOp{"c"}, ++version);
  state.Apply(Records("a", 0, kSegmentRows - 30, 0), ++version);
  state.Apply(Records("a", 0, 30, 1), ++version);  // overwrites: 30 dead rows, and the segment is full
  state.Apply(DeleteOp{"c", {"a50", "a51"}}, ++version);
  SnapshotPtr before = state.Freeze(version);
  const uint32_t live = kSegmentRows - 32;
  auto picked = PickAndRewrite(state, *before);
  if (!picked) return Check(false, "a segment with dead rows is picked");
  auto& [job, out] = *picked;
  Check(out.segment && out.segment->appended() == live, "the rewrite keeps the rows live at its version");

  // Meanwhile: a delete, an overwrite of a row the rewrite copied, and a new record.
  state.Apply(DeleteOp{"c", {"a60"}}, ++version);
  state.Apply(Records("a", 70, 71, 2), ++version);
  state.Apply(Records("b", 0, 1, 0), ++version);
  SnapshotPtr meanwhile = state.Freeze(version);
  std::vector<std::string> expected = Visible(*meanwhile);

  Check(state.InstallCompaction(job, out), "the switch is made");
  SnapshotPtr after = state.Freeze(version);
  Check(Visible(*after) == expected, "the same rows are visible after the switch, in the same order");
  Check(after->collections.at("c")->dead_rows == 2, "the two rows deleted meanwhile are the only dead ones left");
  Check(after->collections.at("c")->live_rows == meanwhile->collections.at("c")->live_rows, "live rows unchanged");
  Check(Visible(*before).size() == live, "a snapshot from before still reads the inputs");

  // Ids point at the output: deleting and overwriting through them reaches its rows.
  state.Apply(DeleteOp{"c", {"a40"}}, ++version);
  state.Apply(Records("a", 41, 42, 3), ++version);
  SnapshotPtr later = state.Freeze(version);
  std::vector<std::string> seen = Visible(*later);
  bool a40 = false, a41_old = false, a41_new = false;
  for (const std::string& s : seen) {
    a40 |= s == "a40=0";
    a41_old |= s == "a41=0";
    a41_new |= s == "a41=3";
  }
  Check(!a40, "a delete after the switch finds the output's row");
  Check(!a41_old && a41_new, "an overwrite after the switch supersedes the output's row");

  Check(!state.InstallCompaction(job, out), "a job whose inputs are gone is refused");
}

void RefusesInputsThatGrewMeanwhile() {
  StoreState state(kDim, 1);
  uint64_t version = 0;
  state.Apply(CreateCollectionOp{"c"}, ++version);
  state.Apply(Records("a", 0, 10, 0), ++version);
  state.Apply(Records("a", 0, 5, 1), ++version);
  auto picked = PickAndRewrite(state, *state.Freeze(version));
  if (!picked) return Check(false, "a memory segment with dead rows is picked");
  auto& [job, out] = *picked;
  state.Apply(Records("b", 0, 1, 0), ++version);  // appended to the input after the job read it
  Check(!state.InstallCompaction(job, out), "a switch that would drop rows the job never saw is refused");
  Check(Visible(*state.Freeze(version)).size() == 11, "and every row is still there");
}

void RemovesSegmentsWithNothingLive() {
  StoreState state(kDim, 1);
  uint64_t version = 0;
  state.Apply(CreateCollectionOp{"c"}, ++version);
  state.Apply(Records("a", 0, 10, 0), ++version);
  state.Apply(DeleteOp{"c", {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}}, ++version);
  auto picked = PickAndRewrite(state, *state.Freeze(version));
  if (!picked) return Check(false, "an all-dead segment is picked");
  auto& [job, out] = *picked;
  Check(!out.segment, "nothing is live: no output segment");
  Check(state.InstallCompaction(job, out), "the switch is made");
  SnapshotPtr after = state.Freeze(version);
  Check(after->collections.at("c")->segments.empty(), "the segment is gone");
  Check(after->collections.at("c")->rows == 0 && after->collections.at("c")->dead_rows == 0, "its rows are reclaimed");
}

void PolicyLeavesSealedWorkToSealedScopes() {
  StoreState state(kDim, 1);
  uint64_t version = 0;
  state.Apply(CreateCollectionOp{"c"}, ++version);
  state.Apply(Records("a", 0, 10, 0), ++version);
  state.Apply(Records("a", 0, 9, 1), ++version);
  SnapshotPtr snap = state.Freeze(version);
  Check(!PickCompaction(*snap, kDim, CompactionScope::kAutomatic), "memory segments are not the background policy's");
  Check(!PickCompaction(*snap, kDim, CompactionScope::kAllDead), "nor POST /compact's on a store with files (it seals first)");
  Check(PickCompaction(*snap, kDim, CompactionScope::kEverything).has_value(), "an in-memory store's compaction takes them");
}

// A sealed segment of rows rows in dir, as the policy sees it (its vectors are all zero).
SegmentRef Sealed(const std::string& dir, uint64_t id, uint32_t rows) {
  SegmentPtr memory = Segment::NewMemory(id, kDim, rows);
  const std::vector<float> floats(kDim, 0.0f);
  for (uint32_t r = 0; r < rows; ++r) memory->Append(RecordInput{std::to_string(id) + "-" + std::to_string(r), 0, {}, ""}, floats);
  memory->Persist(dir, rows);
  return SegmentRef{Segment::OpenSealed(dir, id, kDim, false, "", false), rows, 0, SegmentIndexes::Flat()};
}

CollectionState Collection(const std::string& dir, const std::vector<uint32_t>& sizes, uint64_t first_id = 1) {
  CollectionState c;
  c.name = "c";
  for (uint32_t rows : sizes) c.segments.push_back(Sealed(dir, first_id++, rows));
  return c;
}

void TellsWhichSegmentsItIsAboutToRewrite() {
  const std::string dir = test::TempDir();
  Check(AboutToBeRewritten(Collection(dir, std::vector<uint32_t>(6, 1100)), kDim).size() == 6,
        "a run of six small segments merges: all six");
  Check(AboutToBeRewritten(Collection(dir, std::vector<uint32_t>(3, 1100), 10), kDim).empty(), "three are too few to merge");
  CollectionState skewed = Collection(dir, {17600, 1100, 1100, 1100, 1100}, 20);
  std::set<uint64_t> due = AboutToBeRewritten(skewed, kDim);
  Check(due.size() == 4 && due.count(20) == 0, "a big segment is left out of a run it would dominate; the four small ones merge");
  CollectionState many = Collection(dir, std::vector<uint32_t>(20, 1100), 30);
  Check(AboutToBeRewritten(many, kDim).size() == 20, "twenty small segments: a merge of sixteen, then one of the other four");
}

void MergesFewerThanFourWhenTheyFillAMergedSegment() {
  const std::string dir = test::TempDir();
  // The policy is asked as for vectors so wide that a merged segment holds at most 3,000 rows
  // (kMaxMergedVectorBytes / their bytes), as a 10M store's million-row segments fill its bound.
  const uint32_t wide = uint32_t((uint64_t(2) << 30) / (3000 * sizeof(float)));
  Check(AboutToBeRewritten(Collection(dir, std::vector<uint32_t>(6, 1000), 50), wide).size() == 6,
        "six segments of a third of the bound: two merges of three");
  Check(AboutToBeRewritten(Collection(dir, {700, 700}, 60), wide).empty(), "two that fill less than half of it wait for more");
  Check(AboutToBeRewritten(Collection(dir, {1000, 2500, 1000}, 70), wide).empty(), "none beside one that nearly fills it alone");
  Check(AboutToBeRewritten(Collection(dir, {1200, 900}, 75), wide).empty(),
        "two that fill half of it but one holds most of the rows: skewed, they wait (a 10M store's last 1.28M and 1.04M)");
  Check(AboutToBeRewritten(Collection(dir, std::vector<uint32_t>(3, 1000), 80), kDim).empty(),
        "the same three, narrow (far under the bound), are too few");
}

void TellsWhetherAMergedSegmentMergesAgain() {
  const std::string dir = test::TempDir();
  // Three merged segments already, then sixteen small ones about to merge into a fourth.
  std::vector<uint32_t> sizes(3, 17600);
  sizes.insert(sizes.end(), 16, 1100);
  CollectionState c = Collection(dir, sizes);
  CompactionJob job{"c", nullptr, {c.segments.begin() + 3, c.segments.end()}, 1, 100};
  CompactedSegment out{Sealed(dir, 100, 17600).segment, std::vector<RowSource>(17600), SegmentIndexes::Flat(), 0};
  Check(RewrittenAgain(c, job, out, kDim), "the fourth merged segment of a size makes a run that merges again");
  CollectionState two(c);
  two.segments.erase(two.segments.begin(), two.segments.begin() + 2);
  Check(!RewrittenAgain(two, job, out, kDim), "the second does not");
  CompactionJob gone{"c", nullptr, {Sealed(dir, 200, 1100)}, 1, 201};
  Check(!RewrittenAgain(c, gone, out, kDim), "a job whose inputs are no longer there says no");
}

}  // namespace
}  // namespace tessera

int main() {
  tessera::CarriesOverWhatHappenedMeanwhile();
  tessera::RefusesInputsThatGrewMeanwhile();
  tessera::RemovesSegmentsWithNothingLive();
  tessera::PolicyLeavesSealedWorkToSealedScopes();
  tessera::TellsWhichSegmentsItIsAboutToRewrite();
  tessera::MergesFewerThanFourWhenTheyFillAMergedSegment();
  tessera::TellsWhetherAMergedSegmentMergesAgain();
  return tessera::test::Report();
}
