// HEADER pins a store's format, dimension and metric for its whole life. It is plain text so an
// operator can read what a directory holds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "tessera/options.h"

namespace tessera {

constexpr uint32_t kFormatVersion = 1;

struct StoreHeader {
  uint32_t format = kFormatVersion;
  uint32_t dimension = 0;
  Metric metric = Metric::kCosine;
};

void WriteHeader(const std::string& dir, const StoreHeader& header);
// nullopt when the directory has no header yet; Error(500) when it is unreadable or of another format.
std::optional<StoreHeader> ReadHeader(const std::string& dir);

}  // namespace tessera
