// HEADER pins a store's format, dimension and metric for its whole life, and records the open-time
// defaults of its ANN and quantization settings (the last writer's resolved configuration). It is
// plain text so an operator can read what a directory holds:
//   tessera-store / format 1 / dimension N / metric M, then one "setting value" line per recorded
//   setting ("ann hnsw", "m 16", ..., "quantization int8", "rescore 4"; "ann none" when off).
// The setting lines need no new format: builds before them read the first four lines only. Builds
// before default indexes wrote no line for a kind that was off, so a header without one means none.
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
  IndexSettings index;  // recorded defaults; a kind unset was off (an older build's header)
};

void WriteHeader(const std::string& dir, const StoreHeader& header);
// nullopt when the directory has no header yet; Error(500) when it is unreadable, of another format,
// or records settings that do not resolve (ResolveIndexConfig). Lines naming no setting this build
// knows are skipped: a later build may record more defaults, and defaults never change the data.
std::optional<StoreHeader> ReadHeader(const std::string& dir);

}  // namespace tessera
