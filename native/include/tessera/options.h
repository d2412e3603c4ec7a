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

// The approximate index built per sealed segment (spec "Store statistics": the knobs and their
// defaults). A query walks with ef = max(ef_search, overscan x (offset + top_k)).
enum class AnnKind { kHnsw, kIvf };
struct AnnConfig {
  AnnKind kind = AnnKind::kHnsw;
  uint32_t m = 16;
  uint32_t ef_construction = 200;
  uint32_t ef_search = 64;
  uint32_t n_lists = 0;  // 0: chosen from the segment's rows
  uint32_t n_probe = 8;
  uint32_t overscan = 4;
  uint64_t seed = 0;
};

// The quantized first pass; the best (offset + top_k) x rescore candidates are rescored exactly.
// Binary needs the Cosine metric.
enum class QuantizationKind { kInt8, kBinary };
struct QuantizationConfig {
  QuantizationKind kind = QuantizationKind::kInt8;
  uint32_t rescore = 4;  // 16 is Binary's default
};

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
