// Checks a sealed segment's column file against the per-row blobs it is derived from: on records
// whose attributes mix every Value type under one name (Int in some rows, Str in others, absent,
// Null, Float incl. -0.0 and NaN, Lists, names held by few rows), every row reads back from its
// column exactly as from its blob; thousands of random filters answer the same through the
// columns as through the blobs, row by row and narrowed range by range (a narrowed range keeps
// every match, and exactly the matches when it says so); FindFolded agrees with a byte-by-byte
// search; and a damaged, truncated or foreign column file is refused, then rebuilt by a writer.
// Prints "N passed, M failed" and exits non-zero on any failure.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "analysis/text_match.h"
#include "check.h"
#include "filter/filter.h"
#include "index/segment_filter.h"
#include "random.h"
#include "storage/field_reader.h"
#include "storage/file_names.h"
#include "storage/segment.h"
#include "storage/segment_columns.h"
#include "util/file_util.h"
#include "util/value.h"

using namespace tessera;

namespace {

using test::Check;
using test::Json;

const std::vector<std::string> kWords = {"apple", "Apple", "APPLE", "apples", "run", "Running", "café", "CAFÉ", "naïve", "日本語",
                                         "x1",    "42",    "a",     "ab",     "",    "e-mail",  "fox",  "Fox",  "brown", "the"};
const std::vector<std::string> kSeparators = {" ", " ", "-", ", ", ".", "/", "_"};
// Names the records draw from; "c" holds few distinct Str values (coded), "rare" is held by few
// rows (a name without arrays).
const std::vector<std::string> kNames = {"m", "s", "n", "c", "l", "t", "rare"};

class Random : public test::Random {
 public:
  using test::Random::Random;
  std::string Words(int lo, int hi) { return test::Random::Words(kWords, kSeparators, lo, hi); }
};

const int64_t kInts[] = {0, 1, -1, 5, 42, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
const double kFloats[] = {0.0, -0.0, 1.5, -2.5, 42.0, 1e300};

// One value of any type under key, or nothing.
void AddAny(Random& rnd, AttrEncoder& e, const std::string& key) {
  switch (rnd.Int(0, 9)) {
    case 0: return;  // absent
    case 1: return e.AddInt(key, kInts[rnd.Int(0, 6)]);
    case 2: return e.AddFloat(key, rnd.Chance(0.1) ? std::nan("") : kFloats[rnd.Int(0, 5)]);
    case 3: return e.AddBool(key, rnd.Chance(0.5));
    case 4: return e.AddDateTime(key, kInts[rnd.Int(0, 6)]);
    case 5: return e.AddNull(key);
    case 6: {
      std::vector<std::string> items;
      for (int i = rnd.Int(0, 3); i > 0; --i) items.push_back(rnd.Words(0, 2));
      return e.AddList(key, std::vector<std::string_view>(items.begin(), items.end()));
    }
    default: return e.AddStr(key, rnd.Words(0, 5));
  }
}

// Names in a varying order (most rows keep one order, some swap two), so the ordered flag is
// exercised both ways across segments.
std::string RandomRecord(Random& rnd, bool shuffle) {
  std::vector<std::string> names = kNames;
  if (shuffle && rnd.Chance(0.3)) std::swap(names[rnd.Int(0, 4)], names[rnd.Int(0, 4)]);
  AttrEncoder e;
  for (const std::string& name : names) {
    if (name == "rare") {
      if (rnd.Chance(0.02)) AddAny(rnd, e, name);
    } else if (name == "n" && rnd.Chance(0.7)) {
      e.AddInt(name, rnd.Int(-3, 9));  // mostly Int, sometimes any type
    } else if (name == "c" && rnd.Chance(0.7)) {
      e.AddStr(name, rnd.Pick(kWords));  // mostly one of few Str values, sometimes any type
    } else {
      AddAny(rnd, e, name);
    }
  }
  return e.Finish();
}

std::string TempDir() {
  std::string dir = "/tmp/tessera-columns-test-" + std::to_string(::getpid());
  MakeDirs(dir);
  return dir;
}

// A sealed segment of the blobs, as a checkpoint writes and reopens it, without columns attached.
SegmentPtr Seal(const std::string& dir, uint64_t id, const std::vector<std::string>& blobs) {
  auto memory = Segment::NewMemory(id, 2, uint32_t(blobs.size()));
  std::vector<float> floats = {0.5f, 0.5f};
  for (size_t i = 0; i < blobs.size(); ++i) {
    RecordInput rec;
    rec.id = "r" + std::to_string(i);
    rec.vector_offset = 0;
    rec.attrs = blobs[i];
    memory->Append(rec, floats);
  }
  memory->Persist(dir, uint32_t(blobs.size()));
  return Segment::OpenSealed(dir, id, 2, true, "", false);
}

bool SameValue(const ValueView& a, const ValueView& b) {
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case ValueTag::kInt:
    case ValueTag::kDateTime:
    case ValueTag::kBool: return a.i == b.i;
    case ValueTag::kFloat: return std::memcmp(&a.f, &b.f, sizeof(double)) == 0;  // -0.0 and NaN bit for bit
    case ValueTag::kStr: return a.s == b.s;
    case ValueTag::kList: return a.s == b.s && a.list_size == b.list_size;
    case ValueTag::kNull: return true;
  }
  return false;
}

void EveryValueReadsBack(const Segment& segment) {
  const SegmentColumns& columns = *segment.columns();
  for (const std::string& name : kNames) {
    const AttrColumn* column = columns.Find(name);
    FieldReader reader(name);
    int mismatches = 0, held = 0;
    for (uint32_t r = 0; r < segment.appended(); ++r) {
      ValueView from_blob, from_column, from_reader;
      bool in_blob = FindAttr(segment.row_attrs(r), name, &from_blob);
      held += in_blob;
      bool in_column =
          column != nullptr && (column->in_blob() ? FindAttr(segment.row_attrs(r), name, &from_column) : column->Get(r, &from_column));
      bool in_reader = reader.Find(segment, r, &from_reader);
      bool same = in_blob == in_column && in_blob == in_reader &&
                  (!in_blob || (SameValue(from_blob, from_column) && SameValue(from_blob, from_reader)));
      mismatches += !same;
    }
    Check(mismatches == 0,
          "every row of '" + name + "' reads back from its column as from its blob (" + std::to_string(mismatches) + " differ)");
    if (name == "rare")
      Check(column != nullptr && column->in_blob() && held > 0, "a name few rows hold has no arrays and is read from the blobs");
    if (name == "n") Check(column != nullptr && !column->in_blob(), "a name most rows hold has arrays");
    if (name == "c") Check(column != nullptr && column->codes != nullptr, "a name of few distinct Str values has codes");
    if (name == "s") Check(column != nullptr && column->codes == nullptr, "a name of many distinct Str values has none");
  }
  Check(columns.Find("nobody") == nullptr, "a name no row holds has no column");
}

std::string RandomValue(Random& rnd) {
  switch (rnd.Int(0, 7)) {
    case 0: return "{\"Int\":" + std::to_string(rnd.Int(-3, 9)) + "}";
    case 1: return "{\"Float\":" + std::string(rnd.Chance(0.5) ? "-0.0" : "1.5") + "}";
    case 2: return std::string("{\"Bool\":") + (rnd.Chance(0.5) ? "true" : "false") + "}";
    case 3: return "{\"DateTime\":" + std::to_string(rnd.Int(-1, 5)) + "}";
    case 4: return "\"Null\"";
    case 5: return "{\"List\":[" + Json(rnd.Words(0, 2)) + "]}";
    default: return "{\"Str\":" + Json(rnd.Words(0, 2)) + "}";
  }
}

std::string RandomLeaf(Random& rnd) {
  std::string k = Json(rnd.Chance(0.05) ? "nobody" : rnd.Chance(0.2) ? "c" : rnd.Pick(kNames));
  switch (rnd.Int(0, 15)) {
    case 0: return "{\"Eq\":[" + k + "," + RandomValue(rnd) + "]}";
    case 1: return "{\"Ne\":[" + k + "," + RandomValue(rnd) + "]}";
    case 2: return "{\"" + rnd.Pick(std::vector<std::string>{"Lt", "Le", "Gt", "Ge"}) + "\":[" + k + "," + RandomValue(rnd) + "]}";
    case 3:
      return "{\"" + rnd.Pick(std::vector<std::string>{"Lt", "Le", "Gt", "Ge", "Eq"}) + "\":[" + k + ",{\"Str\":" + Json(rnd.Pick(kWords)) +
             "}]}";
    case 4: return "{\"In\":[" + k + ",[" + RandomValue(rnd) + "," + RandomValue(rnd) + "]]}";
    case 5: return "{\"NotIn\":[" + k + ",[" + RandomValue(rnd) + "]]}";
    case 6: return "{\"Contains\":[" + k + ",{\"Str\":" + Json(rnd.Words(0, 2)) + "}]}";
    case 7: return "{\"NotContains\":[" + k + ",{\"Str\":" + Json(rnd.Words(1, 1)) + "}]}";
    case 8:
      if (rnd.Chance(0.5))
        return "{\"In\":[" + k + ",[{\"Str\":" + Json(rnd.Pick(kWords)) + "},{\"Str\":" + Json(rnd.Pick(kWords)) + "}]]}";
      return "{\"ContainsAny\":[" + k + ",[{\"Str\":" + Json(rnd.Words(1, 1)) + "}]]}";
    case 9: return "{\"Glob\":[" + k + "," + Json("*" + rnd.Pick(kWords) + "*") + "]}";
    case 10: return "{\"Regex\":[" + k + "," + Json("(?i).*" + rnd.Pick(kWords) + ".*") + "]}";
    case 11: return "{\"Fuzzy\":[" + k + "," + Json(rnd.Words(1, 2)) + "," + std::to_string(rnd.Int(0, 2)) + "]}";
    case 12: return "{\"ContainsAnyToken\":[" + k + "," + Json(rnd.Words(0, 2)) + "]}";
    case 13: return "{\"ContainsTokenSequence\":[" + k + "," + Json(rnd.Words(0, 3)) + "]}";
    default: return "{\"ContainsAllTokens\":[" + k + "," + Json(rnd.Words(0, 3)) + "]}";
  }
}

std::string RandomPredicate(Random& rnd, int depth = 0) {
  if (depth < 2) {
    switch (rnd.Int(0, 9)) {
      case 0: return "{\"All\":[" + RandomPredicate(rnd, depth + 1) + "," + RandomPredicate(rnd, depth + 1) + "]}";
      case 1: return "{\"Any\":[" + RandomPredicate(rnd, depth + 1) + "," + RandomPredicate(rnd, depth + 1) + "]}";
      case 2: return "{\"Not\":" + RandomPredicate(rnd, depth + 1) + "}";
      default: break;
    }
  }
  return RandomLeaf(rnd);
}

// Through the columns a filter answers every row as through the blob, and a narrowed range keeps
// every match (exactly the matches when it says kExact).
void FiltersAgree(const Segment& segment, Random& rnd, int filters) {
  int row_mismatches = 0, lost = 0, inexact = 0, narrowed = 0, exact = 0;
  const uint32_t rows = segment.appended();
  for (int q = 0; q < filters; ++q) {
    std::string json = "[";
    for (int n = rnd.Int(1, 3), i = 0; i < n; ++i) json += (i ? "," : "") + RandomPredicate(rnd);
    json += "]";
    Filter filter = Filter::CompileText(json, "filter");
    SegmentFilter bound(filter, segment);
    std::vector<bool> want(rows);
    for (uint32_t r = 0; r < rows; ++r) {
      want[r] = filter.Matches(segment.row_attrs(r));
      if (bound.Matches(r) != want[r] && ++row_mismatches <= 5) std::printf("  row %u differs for %s\n", r, json.c_str());
    }
    uint32_t begin = uint32_t(rnd.Int(0, int(rows) - 1)), end = uint32_t(rnd.Int(int(begin) + 1, int(rows)));
    RowBits bits;
    bits.Reset(begin, end);
    Narrowed how = bound.Narrow(bits);
    narrowed += how != Narrowed::kNone;
    exact += how == Narrowed::kExact;
    for (uint32_t r = begin; r < end; ++r) {
      if (want[r] && !bits.Has(r) && ++lost <= 5) std::printf("  narrowing lost row %u of %s\n", r, json.c_str());
      if (how == Narrowed::kExact && !want[r] && bits.Has(r) && ++inexact <= 5)
        std::printf("  'exact' kept row %u of %s\n", r, json.c_str());
    }
  }
  Check(row_mismatches == 0, "every random filter answers every row through the columns as through the blobs");
  Check(lost == 0, "a narrowed range keeps every matching row");
  Check(inexact == 0, "a range narrowed exactly keeps only matching rows");
  std::printf("  %d of %d filters narrowed, %d exactly\n", narrowed, filters, exact);
  Check(narrowed > filters / 4 && exact > filters / 8,
        "most filters narrow, many exactly (" + std::to_string(narrowed) + " narrowed, " + std::to_string(exact) + " exactly)");
}

// Folded search against a byte-by-byte reference, at every start position.
void FindFoldedAgrees(Random& rnd) {
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = rnd.Words(0, 12);
    std::string needle = rnd.Pick(kWords);
    for (char& c : needle) c = AsciiLower(c);
    if (rnd.Chance(0.2) && !text.empty()) needle = text.substr(size_t(rnd.Int(0, int(text.size()) - 1)), size_t(rnd.Int(0, 4)));
    for (char& c : needle) c = AsciiLower(c);
    size_t from = size_t(rnd.Int(0, int(text.size()) + 1));
    size_t want = std::string_view::npos;
    for (size_t p = from; p + needle.size() <= text.size(); ++p) {
      if (TokenEquals(std::string_view(text).substr(p, needle.size()), needle)) {
        want = p;
        break;
      }
    }
    if (needle.empty()) want = from <= text.size() ? from : std::string_view::npos;
    mismatches += FindFolded(text, needle, from) != want;
  }
  Check(mismatches == 0, "FindFolded finds the first folded occurrence as a byte-by-byte search does");
}

void Damage(const std::string& path, size_t at) {
  std::string bytes = ReadWholeFile(path);
  bytes[at % bytes.size()] ^= 0x10;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void DamagedFilesAreRefusedAndRebuilt(const std::string& dir, const Segment& segment) {
  const std::string path = SegmentColumnsPath(dir, segment.id());
  const std::string good = ReadWholeFile(path);
  Check(good == SegmentColumns::Encode(segment), "the file holds exactly what Encode gives (the build is deterministic)");
  for (size_t at : {size_t(3), size_t(40), size_t(100), good.size() / 2, good.size() - 1}) {
    Damage(path, at);
    Check(SegmentColumns::Open(path, segment) == nullptr, "a flipped bit at byte " + std::to_string(at) + " is caught at open");
    Check(OpenSegmentColumns(dir, segment, false) == nullptr, "a reader ignores a damaged file");
    SegmentColumnsPtr rebuilt = OpenSegmentColumns(dir, segment, true);
    Check(rebuilt != nullptr && ReadWholeFile(path) == good, "a writer rebuilds a damaged file to the same bytes");
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() / 3);
  Check(SegmentColumns::Open(path, segment) == nullptr, "a truncated file is refused");
  RemoveFile(path);
  Check(OpenSegmentColumns(dir, segment, false) == nullptr, "a reader without the file reads blobs");
  Check(OpenSegmentColumns(dir, segment, true) != nullptr && ReadWholeFile(path) == good, "a writer builds a missing file");
}

void ForeignFilesAreRefused(const std::string& dir, Random& rnd) {
  std::vector<std::string> a, b;
  for (int i = 0; i < 300; ++i) a.push_back(RandomRecord(rnd, false));
  b = a;
  AttrEncoder other;
  other.AddStr("only_in_b", "x");
  b[7] = other.Finish();
  SegmentPtr first = Seal(dir, 40, a), second = Seal(dir, 41, b);
  std::string cols_a = SegmentColumnsPath(dir, 40), cols_b = SegmentColumnsPath(dir, 41);
  WriteFileAtomic(cols_a, SegmentColumns::Encode(*first));
  Check(SegmentColumns::Open(cols_a, *second) == nullptr, "a column file of other rows (another rows file CRC) is refused");
  std::vector<std::string> shorter(a.begin(), a.begin() + 299);
  SegmentPtr third = Seal(dir, 42, shorter);
  Check(SegmentColumns::Open(cols_a, *third) == nullptr, "a column file of another row count is refused");
}

}  // namespace

int main() {
  std::string dir = TempDir();
  Random rnd(20240703);
  for (bool shuffle : {false, true}) {
    std::vector<std::string> blobs;
    for (int i = 0; i < 2000; ++i) blobs.push_back(RandomRecord(rnd, shuffle));
    SegmentPtr segment = Seal(dir, shuffle ? 2 : 1, blobs);
    segment->AttachColumns(OpenSegmentColumns(dir, *segment, true));
    Check(segment->columns() != nullptr && FileExists(SegmentColumnsPath(dir, segment->id())), "a writer writes the column file");
    Check(segment->columns()->ordered() == !shuffle,
          shuffle ? "rows listing names in other orders are not ordered" : "rows in one order are");
    EveryValueReadsBack(*segment);
    FiltersAgree(*segment, rnd, 3000);
    if (!shuffle) DamagedFilesAreRefusedAndRebuilt(dir, *segment);
  }
  {
    SegmentPtr empty = Seal(dir, 3, {std::string(), std::string()});
    SegmentColumnsPtr columns = OpenSegmentColumns(dir, *empty, true);
    Check(columns != nullptr && columns->columns().empty(), "rows without attributes have an empty column file");
  }
  ForeignFilesAreRefused(dir, rnd);
  FindFoldedAgrees(rnd);
  for (const std::string& name : ListDir(dir)) RemoveFile(dir + "/" + name);
  ::rmdir(dir.c_str());
  return test::Report();
}
