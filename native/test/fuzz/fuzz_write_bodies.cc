// Every input as the body of POST /collections/{name}/upsert and /delete.
#include "fuzz_contract.h"
#include "query/parse/write_parser.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::Body(data, size);
  fuzz::ParsesOrRefuses("ParseUpsert", [&] { ParseUpsert(body, "docs", 4, Metric::kCosine); });
  fuzz::ParsesOrRefuses("ParseDelete", [&] { ParseDelete(body); });
  return 0;
}
