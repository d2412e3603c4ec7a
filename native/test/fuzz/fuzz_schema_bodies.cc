// Every input as the body of the catalog writes: PUT /collections/{name}/meta, POST
// /collections/{name}/vector-names, /filter-index and /fts-schema, and PUT /aliases/{name}.
#include "fuzz_contract.h"
#include "query/parse/schema_parser.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::Body(data, size);
  fuzz::ParsesOrRefuses("ParseMeta", [&] { ParseMeta(body); });
  fuzz::ParsesOrRefuses("ParseVectorNames", [&] { ParseVectorNames(body); });
  fuzz::ParsesOrRefuses("ParseFilterIndex", [&] { ParseFilterIndex(body); });
  fuzz::ParsesOrRefuses("ParseFtsSchema", [&] { ParseFtsSchema(body); });
  fuzz::ParsesOrRefuses("ParseAliasTarget", [&] { ParseAliasTarget(body); });
  return 0;
}
