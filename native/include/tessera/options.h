// How a store is opened, and the fixed facts a store is opened with: its distance metric and the
// role this process plays for it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

enum class Metric { kCosine, kEuclidean, kDotProduct };

const char* MetricName(Metric m);
// Throws Error(400) naming the three metrics when name is none of them.
Metric ParseMetric(std::string_view name);

// Writer: holds the writer lock. Reader: another process holds it, or the store was opened
// read-only. InMemory: no files at all.
enum class Role { kWriter, kReader, kInMemory };

const char* RoleName(Role role);

struct StoreOptions {
  std::string path;
  bool in_memory = false;
  std::optional<uint32_t> dimension;
  std::optional<Metric> metric;
  size_t query_threads = 0;  // 0 = number of CPUs
  bool mmap = true;
  bool read_only = false;
};

}  // namespace tessera
