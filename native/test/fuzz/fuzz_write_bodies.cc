// Every input as the body of POST /collections/{name}/upsert and /delete; and an upsert body cut
// into parts as a large one is (16-byte parts here): when every part reads, the whole body must read
// to the same records.
#include <optional>

#include "../same_upsert.h"
#include "fuzz_contract.h"
#include "query/parse/write_parser.h"
#include "util/thread_pool.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::Body(data, size);
  fuzz::ParsesOrRefuses("ParseUpsert", [&] { ParseUpsert(body, "docs", 4, Metric::kCosine); });
  fuzz::ParsesOrRefuses("ParseDelete", [&] { ParseDelete(body); });
  std::vector<size_t> cuts = UpsertCuts(body, 4, 16);
  if (cuts.empty()) return 0;
  static ThreadPool inline_pool(0);
  std::optional<UpsertOp> parts;
  fuzz::ParsesOrRefuses("ReadUpsertInParts",
                        [&] { parts = ReadUpsertInParts(body, cuts, 4, Metric::kCosine, ReservedKeys::kDrop, inline_pool); });
  if (!parts) return 0;
  std::optional<UpsertOp> whole;
  fuzz::ParsesOrRefuses("ParseUpsert", [&] { whole = ParseUpsert(body, "docs", 4, Metric::kCosine); });
  if (!whole) fuzz::BrokenContract("ReadUpsertInParts", "every part read, but the whole body was refused");
  if (!test::SameUpsert(*parts, *whole, 4)) fuzz::BrokenContract("ReadUpsertInParts", "the parts read other records than the whole body");
  return 0;
}
