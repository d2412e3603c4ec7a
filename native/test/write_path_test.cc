// The write path's shortcuts. A request body is parsed in place when the bytes simdjson reads past
// its end lie in its last page: bodies ending 0-129 bytes before a page whose successor is
// inaccessible all parse (a wrong check would fault), whatever the bytes after them hold, and bodies
// growing and shrinking through the parser's reused buffers parse alike. The log's pipeline keeps
// version order whether an op is appended here or handed to its thread, makes both durable on
// Sync, and once a write fails, every later Sync throws. Populate, which commits the next page of a
// memory segment's vectors ahead of the writer, commits exactly its range and changes no byte, and
// nothing is committed ahead while a segment's first huge page fills (small collections stay small).
// Prints "N passed, M failed" and exits non-zero on any failure.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "catalog/log_pipeline.h"
#include "check.h"
#include "query/parse/body_reader.h"
#include "query/parse/write_parser.h"
#include "storage/wal.h"
#include "util/byte_io.h"
#include "util/file_util.h"

namespace {

using namespace tessera;
using test::Check;

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

void ThePipelineKeepsVersionOrder() {
  std::string path = test::TempDir() + "/wal";
  Wal wal;
  wal.OpenForAppend(path);
  LogPipeline log(&wal, 4);
  Op large = ParseUpsert(Records(300), "c", 4, Metric::kDotProduct);
  Op small = ParseUpsert(Records(2), "c", 4, Metric::kDotProduct);
  Check(LogPipeline::Large(large) && !LogPipeline::Large(small), "a 300-record upsert is handed over, a 2-record one is not");
  // small after large goes behind it while the thread holds it; then alone, it is written here.
  log.Append(1, large);
  log.Append(2, small);
  log.Append(3, large);
  log.Sync();
  log.Append(4, small);
  log.Sync();
  auto logged = LoggedVersionsAndRecords(path);
  std::vector<std::pair<uint64_t, size_t>> expected{{1, 300}, {2, 2}, {3, 300}, {4, 2}};
  Check(logged == expected, "the log holds versions 1-4 in order, each op whole");
}

void AFailedWriteFailsEverySync() {
  Wal wal;
  wal.OpenForAppend("/dev/full");
  LogPipeline log(&wal, 4);
  Op large = ParseUpsert(Records(300), "c", 4, Metric::kDotProduct);
  log.Append(1, large);
  log.Append(2, large);
  int thrown = 0;
  for (int i = 0; i < 2; ++i) {
    try {
      log.Sync();
    } catch (const std::exception&) {
      ++thrown;
    }
  }
  Check(thrown == 2, "a write the thread could not make fails Sync, and every Sync after it");
  log.Quiesce();
  bool inline_thrown = false;
  try {
    Op small = ParseUpsert(Records(2), "c", 4, Metric::kDotProduct);
    log.Append(3, small);
  } catch (const std::exception&) {
    inline_thrown = true;
  }
  Check(inline_thrown, "a write made on the caller's thread throws there");
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

}  // namespace

int main() {
  BodiesParseWhereverTheyEnd();
  GrowingAndShrinkingBodiesParse();
  ThePipelineKeepsVersionOrder();
  AFailedWriteFailsEverySync();
  PopulateCommitsPagesAndKeepsTheirBytes();
  CommitsAheadOnlyPastTheFirstHugePage();
  return test::Report();
}
