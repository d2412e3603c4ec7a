// Every input as the body of POST /text-search, /hybrid-search and /suggest.
#include "fuzz_contract.h"
#include "query/parse/text_parser.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::Body(data, size);
  fuzz::ParsesOrRefuses("ParseTextSearch", [&] { ParseTextSearch(body); });
  fuzz::ParsesOrRefuses("ParseHybridSearch", [&] { ParseHybridSearch(body, 4, Metric::kEuclidean); });
  fuzz::ParsesOrRefuses("ParseSuggest", [&] { ParseSuggest(body); });
  return 0;
}
