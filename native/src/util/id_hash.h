// The hash of record ids that id tables place entries by: FNV-1a with MurmurHash3's final
// avalanche. Fixed, because saved id indexes (index/id_index.h) depend on it.
#pragma once
#include <cstdint>
#include <string_view>

namespace tessera {

inline uint64_t IdHash(std::string_view id) {
  uint64_t h = 14695981039346656037ull;
  for (char c : id) h = (h ^ uint8_t(c)) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace tessera
