// GET /stats: the store's fixed facts and its footprint at one snapshot.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "catalog/snapshot.h"
#include "tessera/options.h"

namespace tessera {

// What the store was opened with, as /stats reports it.
struct StoreFacts {
  uint32_t dimension;
  Metric metric;
  size_t query_threads;
  bool mmap;
  std::optional<AnnConfig> ann;  // null in /stats when off
  std::optional<QuantizationConfig> quantization;
};

std::string StatsJson(const Snapshot& snap, const StoreFacts& facts);

}  // namespace tessera
