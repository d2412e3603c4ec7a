// Checks the structures a store derives from segments and keeps beside them: the writer's live-id
// table against std::unordered_map under random upserts and deletes (backward-shift deletion
// included), at a size where it doubles many times, and on tables another map let go of; the id
// index finding every row of every id, saved and opened; full-text postings saved and opened equal
// to the ones built, array by array; and the derived-file frame refusing a flipped byte, a changed
// declaration, other rows and an older format; and the writer's saver of derived files leaving a
// replaced segment's files to the writer's sweep. Prints "N passed, M failed" and exits non-zero on
// any failure.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/live_ids.h"
#include "catalog/sealed_index_saver.h"
#include "catalog/sealed_indexes.h"
#include "check.h"
#include "index/derived_file.h"
#include "index/id_index.h"
#include "index/text_index.h"
#include "storage/segment.h"
#include "util/value.h"

using namespace tessera;

namespace {

using test::Check;

// A memory segment of records with these ids and texts (attribute "body").
std::shared_ptr<Segment> MakeSegment(const std::vector<std::string>& ids, const std::vector<std::string>& texts) {
  auto segment = Segment::NewMemory(1, 2, uint32_t(ids.size()));
  std::vector<float> none;
  for (size_t i = 0; i < ids.size(); ++i) {
    AttrEncoder e;
    if (i < texts.size()) e.AddStr("body", texts[i]);
    RecordInput rec;
    rec.id = ids[i];
    rec.attrs = e.Finish();
    segment->Append(rec, none);
  }
  return segment;
}

void FlipByte(const std::string& path, size_t from_end) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  auto at = std::streamoff(f.tellg()) - std::streamoff(from_end);
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c ^= 0x20;
  f.seekp(at);
  f.write(&c, 1);
}

// Random upserts (Put of a new row for an id) and deletes over a small id space, so runs of
// colliding entries form and break up; after every step the table agrees with the oracle.
void LiveIdsAgreeWithAMap() {
  std::mt19937 rng(7);
  const int kOps = 60000, kIds = 5000;
  std::vector<std::string> ids;
  for (int i = 0; i < kOps; ++i) ids.push_back("id-" + std::to_string(rng() % kIds));
  auto segment = MakeSegment(ids, {});  // row i holds ids[i]
  LiveIds live;
  std::unordered_map<std::string, uint32_t> oracle;
  size_t disagreements = 0;
  for (uint32_t r = 0; r < uint32_t(kOps); ++r) {
    const std::string& id = ids[r];
    if (rng() % 3 == 0) {
      bool erased = live.Erase(id);
      disagreements += erased != (oracle.erase(id) == 1);
    } else {
      live.Put({segment.get(), r});
      oracle[id] = r;
    }
    if (r % 97 == 0) {
      for (int k = 0; k < kIds; k += 7) {
        std::string probe = "id-" + std::to_string(k);
        std::optional<LiveIds::Ref> got = live.Find(probe);
        auto want = oracle.find(probe);
        disagreements += got.has_value() != (want != oracle.end()) || (got && got->row != want->second);
      }
    }
  }
  Check(disagreements == 0, "live ids disagree with the map " + std::to_string(disagreements) + " times");
  Check(live.size() == oracle.size(), "live ids count the live ids");
  for (const auto& [id, row] : oracle) {
    std::optional<LiveIds::Ref> got = live.Find(id);
    if (!got || got->row != row) {
      Check(false, "live ids lost " + id);
      break;
    }
  }
}

// Enough ids that the table doubles many times: 300,000 put, every third erased, then half put
// again from a second segment and looked up, against the map; and a table reserved for a segment.
void LiveIdsStayRightAsTheyGrow() {
  const uint32_t kIds = 300000;
  std::vector<std::string> ids;
  for (uint32_t i = 0; i < kIds; ++i) ids.push_back("doc-" + std::to_string(i));
  auto first = MakeSegment(ids, {}), second = MakeSegment(ids, {});
  LiveIds live;
  std::unordered_map<std::string, uint32_t> oracle;
  for (uint32_t r = 0; r < kIds; ++r) live.Put({first.get(), r}), oracle[ids[r]] = r;
  size_t wrong = 0;
  for (uint32_t r = 0; r < kIds; r += 3) wrong += !live.Erase(ids[r]), oracle.erase(ids[r]);
  for (uint32_t r = 0; r < kIds; r += 3) wrong += live.Erase(ids[r]);
  Check(wrong == 0, "erase answers whether the id was there " + std::to_string(wrong));
  for (uint32_t r = 0; r < kIds; r += 2) live.Put({second.get(), r}), oracle[ids[r]] = r + kIds;
  Check(live.size() == oracle.size(), "the map counts " + std::to_string(live.size()) + " ids of " + std::to_string(oracle.size()));
  wrong = 0;
  for (uint32_t r = 0; r < kIds; ++r) {
    std::optional<LiveIds::Ref> got = live.Find(ids[r]);
    auto want = oracle.find(ids[r]);
    if (want == oracle.end()) {
      wrong += got.has_value();
    } else {
      uint32_t row = want->second % kIds;
      Segment* segment = want->second >= kIds ? second.get() : first.get();
      wrong += !got || got->row != row || got->segment != segment;
    }
  }
  Check(wrong == 0, "every id finds its row after the table grew: " + std::to_string(wrong) + " wrong");

  LiveIds reserved;
  reserved.Reserve(kIds);
  reserved.PutLiveRows(*first);
  wrong = 0;
  for (uint32_t r = 0; r < kIds; r += 101) wrong += !reserved.Find(ids[r]) || reserved.Find(ids[r])->row != r;
  Check(wrong == 0 && reserved.size() == kIds, "a map reserved for a segment takes its rows");
}

// A map that grows through the sizes of one let go of takes its tables, and finds none of its ids.
void AKeptTableComesBackEmpty() {
  std::vector<std::string> mine, theirs;
  for (int i = 0; i < 3000; ++i) mine.push_back("mine-" + std::to_string(i)), theirs.push_back("theirs-" + std::to_string(i));
  auto old_segment = MakeSegment(mine, {}), new_segment = MakeSegment(theirs, {});
  {
    LiveIds before;
    for (uint32_t r = 0; r < 3000; ++r) before.Put({old_segment.get(), r});
  }
  LiveIds after;
  for (uint32_t r = 0; r < 3000; ++r) after.Put({new_segment.get(), r});
  size_t stale = 0, lost = 0;
  for (uint32_t r = 0; r < 3000; ++r) stale += after.Find(mine[r]).has_value(), lost += !after.Find(theirs[r]);
  Check(stale == 0 && lost == 0 && after.size() == 3000,
        "a map on kept tables holds its own ids only (" + std::to_string(stale) + " stale, " + std::to_string(lost) + " lost)");
}

void IdIndexFindsEveryRow(const std::string& dir) {
  std::vector<std::string> ids;
  for (int i = 0; i < 20000; ++i) ids.push_back("doc/" + std::to_string(i % 15000));  // 5000 ids on two rows
  auto segment = MakeSegment(ids, {});
  IdIndexPtr built = IdIndex::Build(*segment);
  const std::string path = dir + "/seg.ids";
  built->Save(path, *segment);
  IdIndexPtr opened = IdIndex::Open(path, *segment);
  Check(opened && opened->mapped() && !built->mapped(), "a saved id index opens, mapped");
  Check(IdIndex::Saved(path, *segment), "the saved id index's header matches its segment");
  size_t wrong = 0;
  for (const IdIndexPtr& index : {built, opened}) {
    if (!index) continue;
    for (int i = 0; i < 15000; ++i) {
      std::string id = "doc/" + std::to_string(i);
      std::vector<uint32_t> rows;
      index->ForEachRow(*segment, id, [&](uint32_t r) { rows.push_back(r); });
      std::sort(rows.begin(), rows.end());
      std::vector<uint32_t> want{uint32_t(i)};
      if (i < 5000) want.push_back(uint32_t(i + 15000));
      wrong += rows != want;
    }
    int absent = 0;
    index->ForEachRow(*segment, "doc/15000", [&](uint32_t) { ++absent; });
    wrong += absent;
  }
  Check(wrong == 0, "the id index misplaced " + std::to_string(wrong) + " ids");
  FlipByte(path, 3);
  Check(IdIndex::Open(path, *segment) == nullptr, "a flipped byte in an id index is caught");
}

template <typename T>
bool SameColumn(const Column<T>& a, const Column<T>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool SameStrings(const StringColumn& a, const StringColumn& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool SamePostings(const FieldPostings& a, const FieldPostings& b) {
  return SameStrings(a.terms, b.terms) && SameStrings(a.surfaces, b.surfaces) && SameColumn(a.term_start, b.term_start) &&
         SameColumn(a.max_tf, b.max_tf) && SameColumn(a.min_dl, b.min_dl) && SameColumn(a.block_start, b.block_start) &&
         SameColumn(a.block_max_tf, b.block_max_tf) && SameColumn(a.block_min_dl, b.block_min_dl) && SameColumn(a.docs, b.docs) &&
         SameColumn(a.tfs, b.tfs) && SameColumn(a.term_positions, b.term_positions) && SameColumn(a.positions, b.positions) &&
         SameColumn(a.doc_len, b.doc_len) && SameColumn(a.surface_term, b.surface_term) && a.docs_with_tokens == b.docs_with_tokens &&
         a.total_len == b.total_len;
}

// Postings built in several commits (so several chunks), saved and opened: every array equal.
// The file refuses other rows, another analyzer declaration, a flipped byte and another format,
// but not another k1 or b (they apply at query time).
void TextPostingsRoundTrip(const std::string& dir) {
  const char* words[] = {"Running", "runs", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dogs", "caf\xC3\xA9", "naive"};
  std::mt19937 rng(11);
  std::vector<std::string> ids, texts;
  for (int i = 0; i < 3000; ++i) {
    std::string t;
    for (int w = 0, n = 1 + int(rng() % 12); w < n; ++w) t += std::string(w ? " " : "") + words[rng() % 12];
    ids.push_back("r" + std::to_string(i));
    texts.push_back(i % 10 == 9 ? "" : t);
  }
  auto segment = MakeSegment(ids, texts);
  std::vector<FtsField> fields{FtsField{"body"}, FtsField{"body", 1.2, 0.75, true, 5}};
  SegmentTextPtr text;
  for (uint32_t end : {2000u, 2600u, 2900u, 3000u}) text = SegmentText::Extend(text, *segment, end, fields);
  Check(text->chunks().size() > 1, "the postings hold several chunks");
  const std::string path = dir + "/seg.text";
  text->Save(path, *segment, fields);
  SegmentTextPtr opened = SegmentText::Open(path, *segment, fields);
  Check(opened && opened->mapped() && !text->mapped(), "saved postings open, mapped");
  if (opened) {
    bool same = opened->chunks().size() == text->chunks().size() && opened->bytes() == text->bytes();
    for (size_t c = 0; same && c < text->chunks().size(); ++c) {
      const TextChunk& a = *text->chunks()[c];
      const TextChunk& b = *opened->chunks()[c];
      same = a.begin() == b.begin() && a.end() == b.end();
      for (size_t f = 0; same && f < fields.size(); ++f) same = SamePostings(a.field(f), b.field(f));
    }
    Check(same, "saved postings equal the built ones, array by array");
    Check(opened->chunks()[0]->field(0).Find("run") >= 0 && opened->chunks()[0]->field(0).Find("runn") < 0,
          "Find works on a mapped dictionary");
  }
  std::vector<FtsField> scoring = fields;
  scoring[0].k1 = 2.0;
  scoring[1].b = 0.1;
  Check(SegmentText::Open(path, *segment, scoring) != nullptr, "k1 and b do not invalidate saved postings");
  std::vector<FtsField> folding = fields;
  folding[0].ascii_folding = true;
  Check(SegmentText::Open(path, *segment, folding) == nullptr, "another analyzer declaration is refused");
  Check(!SegmentText::Saved(path, *segment, folding), "another analyzer declaration is told by the header");
  std::vector<std::string> more = ids;
  more.push_back("extra");
  auto longer = MakeSegment(more, texts);
  Check(SegmentText::Open(path, *longer, fields) == nullptr, "postings of other rows are refused");
  FlipByte(path, 17);
  Check(SegmentText::Open(path, *segment, fields) == nullptr, "a flipped byte in saved postings is caught");
  Check(SegmentText::Saved(path, *segment, fields), "a damaged body is not told by the header (opening tells it)");
}

// The frame: a body written under one format version does not open under another.
void FrameRefusesOtherFormats(const std::string& dir) {
  const std::string path = dir + "/frame";
  DerivedFileWriter writer(DerivedFileKind{0x1122334455667788, 3}, 5, "decl");
  writer.body()(uint32_t(42));
  writer.Save(path);
  std::optional<BlockReader> body = OpenDerivedFile(path, DerivedFileKind{0x1122334455667788, 3}, 5, "decl");
  uint32_t v = 0;
  if (body) (*body)(v);
  Check(body && v == 42 && body->done(), "a frame reads back its body");
  Check(!OpenDerivedFile(path, DerivedFileKind{0x1122334455667788, 2}, 5, "decl"), "an older format is refused");
  Check(!OpenDerivedFile(path, DerivedFileKind{0x1122334455667789, 3}, 5, "decl"), "another kind is refused");
  Check(!OpenDerivedFile(path, DerivedFileKind{0x1122334455667788, 3}, 6, "decl"), "other rows are refused");
  Check(!OpenDerivedFile(path, DerivedFileKind{0x1122334455667788, 3}, 5, "decl2"), "another declaration is refused");
  Check(!OpenDerivedFile(dir + "/absent", DerivedFileKind{0x1122334455667788, 3}, 5, "decl"), "a missing file opens as nothing");
}

// The saver writes the derived files of a segment a compaction has just replaced: it must leave
// every file of the segment in place (with history on, a past version still names them) and ask
// the writer to sweep instead. It once removed them all, and a kept version lost its rows.
void SaverLeavesARetiredSegmentToTheSweep(const std::string& parent) {
  const std::string dir = parent + "/saver";
  std::filesystem::create_directories(dir);
  auto memory = MakeSegment({"a", "b", "c"}, {});
  memory->Persist(dir, 3);
  SegmentPtr sealed = Segment::OpenSealed(dir, memory->id(), 2, false, "", false);
  auto schema = std::make_shared<const CollectionSchema>();
  auto collection = std::make_shared<CollectionState>();
  collection->name = "c";
  collection->schema = schema;
  collection->segments.push_back({sealed, 3, 0, OpenSealedSegmentIndexes(dir, *sealed, *schema, false)});
  auto snap = std::make_shared<Snapshot>();
  snap->collections["c"] = collection;
  std::vector<std::string> before;
  for (const auto& e : std::filesystem::directory_iterator(dir)) before.push_back(e.path().filename().string());
  int sweeps = 0;
  SealedIndexSaver saver(
      dir, [snap] { return SnapshotPtr(snap); }, [](uint64_t) { return true; }, [&] { ++sweeps; });
  saver.SaveNow();
  size_t kept = 0;
  for (const std::string& name : before) kept += std::filesystem::exists(dir + "/" + name);
  Check(!before.empty() && kept == before.size(), "the saver leaves every file of a replaced segment in place");
  Check(sweeps == 1, "the saver asks the writer to sweep once it saved files of a replaced segment");
}

}  // namespace

int main() {
  const std::string dir = test::TempDir();
  LiveIdsAgreeWithAMap();
  LiveIdsStayRightAsTheyGrow();
  AKeptTableComesBackEmpty();
  IdIndexFindsEveryRow(dir);
  TextPostingsRoundTrip(dir);
  FrameRefusesOtherFormats(dir);
  SaverLeavesARetiredSegmentToTheSweep(dir);
  std::filesystem::remove_all(dir);
  return test::Report();
}
