// One field of a collection's full-text schema (spec: FtsField): the attribute it indexes, its
// BM25 parameters and its analyzer options.
#pragma once
#include <cstdint>
#include <string>

namespace tessera {

struct FtsField {
  std::string field;
  double k1 = 1.2;
  double b = 0.75;
  bool ascii_folding = false;
  uint32_t max_token_len = 0;  // 0 = no limit
};

}  // namespace tessera
