// Every input as the body of POST /list and /aggregate.
#include "fuzz_contract.h"
#include "query/parse/metadata_parser.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::Body(data, size);
  fuzz::ParsesOrRefuses("ParseList", [&] { ParseList(body); });
  fuzz::ParsesOrRefuses("ParseAggregate", [&] { ParseAggregate(body); });
  return 0;
}
