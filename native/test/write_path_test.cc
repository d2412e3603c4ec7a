// The write path's shortcuts. A request body is parsed in place when the bytes simdjson reads past
// its end lie in its last page: bodies ending 0-129 bytes before a page whose successor is
// inaccessible all parse (a wrong check would fault), whatever the bytes after them hold, and bodies
// growing and shrinking through the parser's reused buffers parse alike. A large body read in parts
// on several threads gives the same records, and a refused one the same 400, naming the field;
// bodies edited at random and cut small read whole to the same records whenever every part reads.
// The thread's parser gives back the buffers of a large body once small ones follow it, and keeps
// them through a stream of similar bodies or large bodies among small ones; when it cannot get
// memory for a body, the body is refused with 507, not "malformed JSON".
// The log's pipeline keeps version order whether an op is appended here or handed to its thread,
// makes both durable on Sync, and once a write fails, every later Sync throws. Populate, which
// commits the next page of a memory segment's vectors ahead of the writer, commits exactly its range
// and changes no byte, and nothing is committed ahead while a segment's first huge page fills
// (small collections stay small). Prints "N passed, M failed" and exits non-zero on any failure.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "catalog/log_pipeline.h"
#include "check.h"
#include "query/parse/body_reader.h"
#include "query/parse/write_parser.h"
#include "random.h"
#include "same_upsert.h"
#include "storage/segment.h"
#include "storage/wal.h"
#include "util/byte_io.h"
#include "util/file_util.h"
#include "util/thread_pool.h"

namespace {

using namespace tessera;
using test::Check;
using test::SameUpsert;

std::string Records(size_t n, size_t first = 0) {
  std::string body = "{\"records\":[";
  for (size_t i = 0; i < n; ++i)
    body += (i ? "," : "") + std::string("{\"id\":\"r") + std::to_string(first + i) + "\",\"vector\":[1,2,3,4]}";
  return body + "]}";
}

// Parses body placed so that it ends gap bytes before an inaccessible page, the gap filled with
// bytes that would break the JSON if they were read as part of it.
bool ParsesBeforeGuardPage(const std::string& body, size_t gap) {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  size_t span = (body.size() + gap + page - 1) / page * page;
  char* area = static_cast<char*>(::mmap(nullptr, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (area == MAP_FAILED) return false;
  ::mprotect(area + span, page, PROT_NONE);
  char* start = area + span - gap - body.size();
  std::memcpy(start, body.data(), body.size());
  std::memset(start + body.size(), '[', gap);
  bool ok = false;
  try {
    UpsertOp op = ParseUpsert(std::string_view(start, body.size()), "c", 4, Metric::kDotProduct);
    ok = op.records.size() == 3 && op.records[2].id == "r2" && op.floats.size() == 12 && op.floats[11] == 4;
  } catch (...) {
  }
  ::munmap(area, span + page);
  return ok;
}

void BodiesParseWhereverTheyEnd() {
  const std::string body = Records(3);
  for (size_t gap = 0; gap < 130; ++gap)
    Check(ParsesBeforeGuardPage(body, gap), "a body ending " + std::to_string(gap) + " bytes before a guard page parses");
}

void GrowingAndShrinkingBodiesParse() {
  for (size_t n : {1, 5000, 20, 40000, 3, 41000, 0, 2}) {
    std::string body = Records(n, n);
    UpsertOp op = ParseUpsert(body, "c", 4, Metric::kDotProduct);
    Check(op.records.size() == n && (n == 0 || op.records.back().id == "r" + std::to_string(2 * n - 1)),
          "a body of " + std::to_string(n) + " records parses after bodies of other sizes");
  }
  bool refused = false;
  try {
    ParseUpsert("{\"records\":[{\"id\":\"a\",\"vector\":[1,2,3,4]},]}", "c", 4, Metric::kDotProduct);
  } catch (const Error& e) {
    refused = e.status() == Status::kBadRequest;
  }
  Check(refused, "malformed JSON after large bodies is still a 400");
}

// A body of about len bytes: one long string.
std::string BodyOf(size_t len) { return "{\"s\":\"" + std::string(len - 8, 'x') + "\"}"; }

void TheParserShrinksAfterALargeBody() {
  RequestBody large(BodyOf(8 << 20));
  const size_t held = ThreadParserCapacity();
  Check(held >= 8 << 20, "a large body grows the parser to hold it");
  for (int i = 0; i < 15; ++i) RequestBody small(BodyOf(1000 + i));
  Check(ThreadParserCapacity() == held, "15 small bodies after a large one leave its buffers");
  RequestBody sixteenth(BodyOf(2000));
  Check(ThreadParserCapacity() < 1 << 20, "the 16th small body in a row shrinks them");
  RequestBody again(BodyOf(1000));
  Check(ThreadParserCapacity() < 1 << 20, "and small bodies parse in the smaller buffers");

  RequestBody grown(BodyOf(8 << 20));
  const size_t regrown = ThreadParserCapacity();
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 15; ++i) RequestBody small(BodyOf(1000));
    RequestBody big(BodyOf(6 << 20));
  }
  Check(ThreadParserCapacity() == regrown, "large bodies among small ones keep the buffers");
  for (int i = 0; i < 40; ++i) RequestBody similar(BodyOf((5 << 20) + i));
  Check(ThreadParserCapacity() == regrown, "a stream of similar bodies keeps the buffers");
}

// In a child process whose address space is capped just above what it holds, so the parser's
// buffers for a 64 MiB body cannot be had. Not under AddressSanitizer, whose allocator aborts
// instead of failing an allocation.
void AParserWithoutMemoryRefusesWith507() {
#if defined(__SANITIZE_ADDRESS__)
  return;
#endif
  std::string body = BodyOf(64 << 20);
  pid_t child = ::fork();
  if (child == 0) {
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    rlimit cap{};
    cap.rlim_cur = cap.rlim_max = rlim_t(pages) * ::sysconf(_SC_PAGESIZE) + (16 << 20);
    if (pages == 0 || ::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(2);
    try {
      RequestBody parsed(body);
    } catch (const Error& e) {
      ::_exit(e.status() == Status::kInsufficientStorage ? 0 : 3);
    }
    ::_exit(4);
  }
  int status = 0;
  bool waited = child > 0 && ::waitpid(child, &status, 0) == child;
  Check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "a body the parser cannot get memory for is 507 (child exit " + std::to_string(WEXITSTATUS(status)) + ")");
}

// n records of dimension 4 with attributes, every third with a named vector, spaced with sep after
// commas and colons (Python's json.dumps writes ", " and ": "). Their strings hold a record joint
// as JSON escapes it.
std::string RichRecords(size_t first, size_t n, const std::string& sep = "") {
  std::string out;
  for (size_t i = first; i < first + n; ++i) {
    std::string id = std::to_string(i);
    if (i > first) out += "," + sep;
    out += "{\"id\":" + sep + "\"r" + id + "\"," + sep + "\"vector\":" + sep + "[" + id + ",1,2,3]," + sep;
    if (i % 3 == 0) out += "\"vectors\":" + sep + "{\"v\":" + sep + "[1,2,3," + id + "]}," + sep;
    out += "\"attrs\":" + sep + "{\"s\":" + sep + "{\"Str\":" + sep + "\"x},{\\\"id\\\":" + id + "\"}," + sep + "\"n\":" + sep +
           "{\"Int\":" + sep + id + "}}}";
  }
  return out;
}

std::string RichBody(size_t n, const std::string& sep = "") { return "{\"records\":" + sep + "[" + RichRecords(0, n, sep) + "]}"; }

// The 400 ParseUpsert gives body, or "" when it takes it.
std::string Refusal(std::string_view body, ThreadPool* pool) {
  try {
    ParseUpsert(body, "c", 4, Metric::kDotProduct, ReservedKeys::kDrop, pool);
  } catch (const Error& e) {
    return e.status() == Status::kBadRequest ? e.what() : "not a 400";
  }
  return "";
}

void LargeBodiesReadInPartsAlike() {
  ThreadPool two(2), four(4);
  for (std::string sep : {"", " "}) {
    std::string body = RichBody(12000, sep);
    std::string spacing = sep.empty() ? "compact" : "spaced";
    Check(UpsertCuts(body, 4).size() == 3 && UpsertCuts(body, 2).size() == 1,
          "a " + spacing + " body of 12,000 records is cut for 2 or 4 threads");
    UpsertOp whole = ParseUpsert(body, "c", 4, Metric::kDotProduct);
    Check(whole.records.size() == 12000 && whole.records[4000].named.size() == 0 && whole.records[4002].named.size() == 1,
          "the whole " + spacing + " body reads 12,000 records");
    for (ThreadPool* pool : {&two, &four})
      Check(
          SameUpsert(whole, ReadUpsertInParts(body, UpsertCuts(body, pool->size()), 4, Metric::kDotProduct, ReservedKeys::kDrop, *pool), 4),
          "read in " + std::to_string(pool->size()) + " parts, a " + spacing + " body gives the same records, attributes and vectors");
  }
  std::string twice = "{\"records\":[" + RichRecords(0, 6000) + "],\"records\":[" + RichRecords(6000, 6000) + "]}";
  UpsertOp whole = ParseUpsert(twice, "c", 4, Metric::kDotProduct);
  Check(UpsertCuts(twice, 4).size() == 3 && whole.records.size() == 12000 &&
            SameUpsert(whole, ReadUpsertInParts(twice, UpsertCuts(twice, 4), 4, Metric::kDotProduct, ReservedKeys::kDrop, four), 4),
        "a body naming records twice reads the same 12,000 records in parts");
  Check(UpsertCuts("{\"records\":[" + RichRecords(0, 100) + "]}", 4).empty(), "a small body is not cut");
  Check(UpsertCuts("[" + RichRecords(0, 12000) + "]", 4).empty(), "a body not framed as {\"records\": [...]} is not cut");
}

// Bodies near the framing the cuts look for, edited at random (brackets, braces, commas, quotes,
// backslashes and whitespace inserted, bytes deleted, a slice repeated), cut into 16-byte parts:
// whenever every part reads, the whole body reads to the same records.
void PartsThatAllReadMakeTheWholeBody() {
  test::Random random(37);
  ThreadPool inline_pool(0);
  const std::string base = RichBody(6), spaced = RichBody(6, " ");
  const std::string inserts[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\"id\":", "},{\"id\":", "],\"records\":["};
  int cut = 0, read = 0, broken = 0;
  for (int i = 0; i < 60000; ++i) {
    std::string body = random.Chance(0.5) ? base : spaced;
    for (int edits = random.Int(1, 3); edits > 0; --edits) {
      size_t at = size_t(random.Int(0, int(body.size()) - 1));
      switch (random.Int(0, 2)) {
        case 0: body.insert(at, inserts[random.Int(0, 11)]); break;
        case 1: body.erase(at, size_t(random.Int(1, 3))); break;
        default: body.insert(at, body.substr(at, size_t(random.Int(1, 40)))); break;
      }
    }
    std::vector<size_t> cuts = UpsertCuts(body, 4, 16);
    if (cuts.empty()) continue;
    ++cut;
    std::optional<UpsertOp> parts;
    try {
      parts = ReadUpsertInParts(body, cuts, 4, Metric::kDotProduct, ReservedKeys::kDrop, inline_pool);
    } catch (const Error&) {
      continue;
    }
    ++read;
    try {
      if (!SameUpsert(*parts, ParseUpsert(body, "c", 4, Metric::kDotProduct), 4)) ++broken;
    } catch (const Error&) {
      ++broken;
    }
  }
  Check(cut > 30000 && read > 1000,
        "edited bodies were cut (" + std::to_string(cut) + ") and read in parts (" + std::to_string(read) + ")");
  Check(broken == 0, "every body read in parts reads whole to the same records (" + std::to_string(broken) + " did not)");
}

void BodiesRefusedInPartsAreRefusedAlike() {
  ThreadPool four(4);
  std::string body = RichBody(12000);
  std::string short_vector = "{\"id\":\"r9000\",\"vector\":[1,2,3";  // its "]" follows
  size_t at = body.find("{\"id\":\"r9000\",\"vector\":[9000,1,2,3]");
  std::string cases[] = {
      body.substr(0, at) + short_vector + body.substr(body.find(']', at)),
      body.substr(0, body.size() - 2) + ",]}",
      body.substr(0, at) + "{\"id\":\"r9000\",\"vectr\":[1,2,3,4]}," + body.substr(at),
      body.substr(0, at) + "{\"id\":\"r9000\",\"attrs\":{\"n\":{\"Int\":99999999999999999999}}}," + body.substr(at),
  };
  const char* what[] = {"a short vector in a late part", "a trailing comma", "an unknown field in a late part", "an Int beyond 64 bits"};
  for (size_t i = 0; i < 4; ++i) {
    std::string alone = Refusal(cases[i], nullptr), in_parts = Refusal(cases[i], &four);
    Check(!alone.empty() && alone == in_parts, std::string(what[i]) + " is refused in parts with the whole body's 400: " + in_parts);
  }
  Check(Refusal(cases[0], &four).find("records[9000].vector") != std::string::npos,
        "the refusal names the record by its place in the whole body: " + Refusal(cases[0], &four));
}

void RefusalsNameTheField() {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"records\":[{\"id\":\"a\"},{\"id\":\"b\",\"attrs\":{\"color\":{\"Int\":1.5}}}]}",
       "records[1].attrs.color.Int must be an integer, got a fraction or exponent form"},
      {"{\"records\":[{\"id\":\"a\",\"vectors\":{\"img\":[1,2]}}]}", "records[0].vectors.img has length 2 but the store dimension is 4"},
      {"{\"records\":[{\"id\":5}]}", "records[0].id must be a string, got a number"},
      {"{\"records\":[{\"id\":\"a\",\"attrs\":{\"tags\":{\"List\":[\"x\",2]}}}]}",
       "records[0].attrs.tags.List[1] must be a string, got a number"},
      {"{\"records\":[{\"id\":\"a\",\"vector\":[1,2,\"3\",4]}]}", "records[0].vector[2] must be a number, got a string"},
  };
  for (auto [body, message] : cases) Check(Refusal(body, nullptr) == message, std::string("refused naming the field: ") + message);
}

std::vector<std::pair<uint64_t, size_t>> LoggedVersionsAndRecords(const std::string& path) {
  std::vector<std::pair<uint64_t, size_t>> out;
  Wal::Replay(path, false, [&](std::string_view payload) {
    ByteReader r(payload);
    uint64_t version = r.Fixed<uint64_t>();
    Op op = DecodeOp(payload.substr(sizeof(uint64_t)), 4);
    const UpsertOp* upsert = std::get_if<UpsertOp>(&op);
    out.emplace_back(version, upsert ? upsert->records.size() : 0);
  });
  return out;
}

// A log opened at path, with its pipeline over a pool of 2 threads.
struct TestLog {
  explicit TestLog(const std::string& at) : path(at), log(&wal, 4, pool) { wal.OpenForAppend(path); }
  std::string path;
  Wal wal;
  ThreadPool pool{2};
  LogPipeline log;
};

void ThePipelineKeepsVersionOrder() {
  TestLog t(test::TempDir() + "/wal");
  LogPipeline& log = t.log;
  Op large = ParseUpsert(Records(300), "c", 4, Metric::kDotProduct);
  Op small = ParseUpsert(Records(2), "c", 4, Metric::kDotProduct);
  Check(LogPipeline::Large(large) && !LogPipeline::Large(small), "a 300-record upsert is written beside its apply, a 2-record one is not");
  std::vector<uint64_t> applied;
  auto apply = [&](uint64_t version) { return [&applied, version] { applied.push_back(version); }; };
  log.AppendAndApply(1, large, apply(1));
  log.AppendAndApply(2, small, apply(2));
  log.AppendAndApply(3, large, apply(3));
  log.AppendAndApply(4, small, apply(4));
  log.Sync();
  auto logged = LoggedVersionsAndRecords(t.path);
  std::vector<std::pair<uint64_t, size_t>> expected{{1, 300}, {2, 2}, {3, 300}, {4, 2}};
  Check(logged == expected, "the log holds versions 1-4 in order, each op whole");
  Check(applied == std::vector<uint64_t>{1, 2, 3, 4}, "each op is applied once, in version order, before AppendAndApply returns");
}

void AFailedWriteFailsEverySync() {
  TestLog t("/dev/full");
  LogPipeline& log = t.log;
  Op large = ParseUpsert(Records(300), "c", 4, Metric::kDotProduct);
  Op small = ParseUpsert(Records(2), "c", 4, Metric::kDotProduct);
  int thrown = 0, applied = 0;
  auto attempt = [&](const std::function<void()>& call) {
    try {
      call();
    } catch (const std::exception&) {
      ++thrown;
    }
  };
  attempt([&] { log.AppendAndApply(1, large, [&] { ++applied; }); });
  Check(thrown == 1, "a large op's write that fails throws from AppendAndApply, after its apply ran beside it");
  attempt([&] { log.Sync(); });
  attempt([&] { log.AppendAndApply(2, small, [&] { ++applied; }); });
  attempt([&] { log.Sync(); });
  Check(thrown == 4, "after a failed write, every later append and sync throws");
  Check(applied == 1, "an op appended after the failure is not applied");
}

void AFailedApplyIsRethrown() {
  TestLog t(test::TempDir() + "/wal-apply");
  LogPipeline& log = t.log;
  Op large = ParseUpsert(Records(300), "c", 4, Metric::kDotProduct);
  bool thrown = false;
  try {
    log.AppendAndApply(1, large, [] { throw std::bad_alloc(); });
  } catch (const std::bad_alloc&) {
    thrown = true;
  }
  Check(thrown, "an apply that fails beside the log's write is rethrown by AppendAndApply, its type kept (507 for memory)");
}

size_t ResidentPages(const Region& r, size_t offset, size_t bytes) {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in(bytes / page);
  if (::mincore(static_cast<char*>(r.data()) + offset, bytes, in.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

void PopulateCommitsPagesAndKeepsTheirBytes() {
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  Region r = Region::Anonymous(8 * kHugePage);
  static_cast<char*>(r.data())[3 * kHugePage + 5] = 42;
  Check(ResidentPages(r, 4 * kHugePage, kHugePage) == 0, "an anonymous region's pages are not committed before they are touched");
  r.Populate(3 * kHugePage, 2 * kHugePage);
  Check(ResidentPages(r, 3 * kHugePage, 2 * kHugePage) == 2 * kHugePage / page, "Populate commits every page of its range");
  Check(ResidentPages(r, 6 * kHugePage, kHugePage) == 0, "Populate commits nothing past its range");
  Check(static_cast<char*>(r.data())[3 * kHugePage + 5] == 42 && static_cast<char*>(r.data())[4 * kHugePage] == 0,
        "Populate leaves what the pages hold");
  r.Populate(7 * kHugePage, 4 * kHugePage);  // clipped to the region's end
  Check(ResidentPages(r, 7 * kHugePage, kHugePage) == kHugePage / page, "Populate past the region's end commits up to it");
}

void CommitsAheadOnlyPastTheFirstHugePage() {
  const size_t row = 512;  // a 128-d f32 vector
  for (uintptr_t base : {uintptr_t(64) * kHugePage, uintptr_t(64) * kHugePage + 12288}) {
    std::string where = base % kHugePage == 0 ? " (aligned memory)" : " (memory starting mid-page)";
    size_t first_boundary = (base / kHugePage + 1) * kHugePage - base;
    Check(!HugePageAhead(base, 0, row), "the first row commits nothing ahead" + where);
    Check(!HugePageAhead(base, first_boundary - row, row), "rows filling the first huge page commit nothing ahead" + where);
    Check(HugePageAhead(base, first_boundary, row) == first_boundary + kHugePage,
          "the row opening the second huge page commits the third" + where);
    Check(!HugePageAhead(base, first_boundary + row, row), "the next row commits nothing more" + where);
    Check(HugePageAhead(base, first_boundary + kHugePage - 100, row) == first_boundary + 2 * kHugePage,
          "a row spanning into a page opens it" + where);
  }
}

void ARecycledSegmentsRegionShowsNoOldVectors() {
  // A capacity no other test uses, so the region kept is this test's own.
  const uint32_t capacity = 12345;
  std::vector<float> floats(4 * 3, 7.0f);
  const float* first = nullptr;
  {
    std::shared_ptr<Segment> a = Segment::NewMemory(1, 4, capacity, /*recycled=*/true);
    for (size_t r = 0; r < 3; ++r) a->Append(RecordInput{"a" + std::to_string(r), int64_t(4 * r), {}, ""}, floats);
    first = a->vectors();
  }
  std::shared_ptr<Segment> b = Segment::NewMemory(2, 4, capacity, /*recycled=*/true);
  Check(b->vectors() == first, "a recycled segment let go of leaves its vector region to the next of its capacity");
  b->Append(RecordInput{"b0", -1, {}, ""}, floats);
  b->Append(RecordInput{"b1", 0, {}, ""}, floats);
  Check(!b->has_vector(0) && std::all_of(b->vector(0), b->vector(0) + 4, [](float x) { return x == 0; }),
        "a row without a vector reads zeros there, not the vector the region held before");
  Check(b->has_vector(1) && b->vector(1)[3] == 7.0f, "a row with a vector reads its own");
  b.reset();
  std::shared_ptr<Segment> c = Segment::NewMemory(3, 4, capacity);
  Check(c->vectors() != first, "a segment not recycled (a compaction's output) gets a fresh region");
  std::shared_ptr<Segment> d = Segment::NewMemory(4, 4, capacity, /*recycled=*/true);
  Check(d->vectors() == first, "and leaves the kept one to the next recycled segment");

  // With d holding the only region kept so far, five segments let go of leave four.
  const uint32_t other = 23456;
  std::vector<std::shared_ptr<Segment>> held;
  for (uint64_t id = 10; id < 15; ++id) {
    held.push_back(Segment::NewMemory(id, 4, other, /*recycled=*/true));
    held.back()->Append(RecordInput{"r", 0, {}, ""}, floats);
  }
  held.clear();
  size_t backed = 0;  // a kept region's first page holds a row; a fresh one's is not committed
  for (uint64_t id = 20; id < 25; ++id) {
    held.push_back(Segment::NewMemory(id, 4, other, /*recycled=*/true));
    unsigned char in = 0;
    if (::mincore(const_cast<float*>(held.back()->vectors()), size_t(::sysconf(_SC_PAGESIZE)), &in) == 0) backed += in & 1;
  }
  Check(backed == 4,
        "at most four regions are kept: the fifth segment let go of is freed, " + std::to_string(backed) + " came back backed");
}

void KeptRegionsGoBackOnceIdle() {
  Segment::ReleaseKeptVectors(std::chrono::seconds(0));  // what earlier tests left kept
  const uint32_t capacity = 34567;
  std::vector<float> floats(4, 7.0f);
  Segment::NewMemory(1, 4, capacity, /*recycled=*/true)->Append(RecordInput{"a", 0, {}, ""}, floats);
  Check(Segment::ReleaseKeptVectors(std::chrono::hours(1)) == 0, "a region kept for less than the idle time stays kept");
  Check(Segment::ReleaseKeptVectors(std::chrono::seconds(0)) == 1, "a region kept for the idle time is freed");
  std::shared_ptr<Segment> next = Segment::NewMemory(2, 4, capacity, /*recycled=*/true);
  unsigned char in = 1;
  Check(::mincore(const_cast<float*>(next->vectors()), size_t(::sysconf(_SC_PAGESIZE)), &in) == 0 && (in & 1) == 0,
        "the next segment of that size gets a fresh region, not the freed one");
}

}  // namespace

int main() {
  BodiesParseWhereverTheyEnd();
  GrowingAndShrinkingBodiesParse();
  TheParserShrinksAfterALargeBody();
  AParserWithoutMemoryRefusesWith507();
  LargeBodiesReadInPartsAlike();
  BodiesRefusedInPartsAreRefusedAlike();
  PartsThatAllReadMakeTheWholeBody();
  RefusalsNameTheField();
  ThePipelineKeepsVersionOrder();
  AFailedWriteFailsEverySync();
  AFailedApplyIsRethrown();
  PopulateCommitsPagesAndKeepsTheirBytes();
  CommitsAheadOnlyPastTheFirstHugePage();
  ARecycledSegmentsRegionShowsNoOldVectors();
  KeptRegionsGoBackOnceIdle();
  return test::Report();
}
