// The two small files that describe a store directory: HEADER pins format, dimension and metric
// for the store's life; MANIFEST names the sealed segments and catalog as of commit_version and is
// replaced atomically by each checkpoint. The log holds everything after commit_version.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/metric.h"
#include "tessera/ops.h"

namespace tessera {

constexpr uint32_t kFormatVersion = 1;

struct StoreHeader {
  uint32_t format = kFormatVersion;
  uint32_t dimension = 0;
  Metric metric = Metric::kCosine;
};

void WriteHeader(const std::string& dir, const StoreHeader& header);
std::optional<StoreHeader> ReadHeader(const std::string& dir);

struct ManifestSegment {
  uint64_t id = 0;
  uint32_t rows = 0;
  std::string deletions;  // file name of the deletion bitmap, empty when nothing was deleted
};

struct ManifestCollection {
  std::string name;
  std::map<std::string, std::string> meta;
  std::vector<std::string> vector_names;
  std::vector<FilterIndexField> filter_index;
  std::vector<FtsField> fts;
  std::vector<ManifestSegment> segments;
};

struct Manifest {
  uint64_t commit_version = 0;
  uint64_t next_segment_id = 1;
  std::vector<ManifestCollection> collections;
  std::map<std::string, std::string> aliases;
};

void WriteManifest(const std::string& dir, const Manifest& manifest);
std::optional<Manifest> ReadManifest(const std::string& dir);

}  // namespace tessera
