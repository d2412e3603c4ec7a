// Every input as the body of POST /search, /search/similar and /search/batch.
#include "fuzz_contract.h"
#include "query/parse/search_parser.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::Body(data, size);
  fuzz::ParsesOrRefuses("ParseSearch", [&] { ParseSearch(body, 4, Metric::kCosine); });
  fuzz::ParsesOrRefuses("ParseSimilar", [&] { ParseSimilar(body); });
  fuzz::ParsesOrRefuses("ParseBatch", [&] { ParseBatch(body, 4, Metric::kDotProduct); });
  return 0;
}
