// MANIFEST names the sealed segments and the catalog (collections with their schemas, aliases) as
// of commit_version, and is replaced atomically by each checkpoint. The log holds everything after
// commit_version.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/collection_schema.h"

namespace tessera {

struct ManifestSegment {
  uint64_t id = 0;
  uint32_t rows = 0;
  std::string deletions;  // file name of the deletion bitmap, empty when nothing was deleted
};

struct ManifestCollection {
  std::string name;
  CollectionSchema schema;
  std::vector<ManifestSegment> segments;
};

struct Manifest {
  uint64_t commit_version = 0;
  // The oldest version this manifest plus the log after commit_version describes: a compaction's
  // manifest keeps the commit version but leaves out rows deleted up to the version it compacted
  // at, so it cannot stand for the versions before (0: commit_version).
  uint64_t valid_from = 0;
  uint64_t next_segment_id = 1;
  std::vector<ManifestCollection> collections;
  std::map<std::string, std::string> aliases;
};

// The manifest's file contents; equal texts describe equal manifests.
std::string ManifestText(const Manifest& manifest);
void WriteManifest(const std::string& dir, const Manifest& manifest);
// nullopt when the directory has no manifest yet; Error(500) when it is corrupt.
std::optional<Manifest> ReadManifest(const std::string& dir);
// The manifest in file path (a kept past one); Error(500) when it is missing or corrupt.
Manifest ReadManifestFile(const std::string& path);

}  // namespace tessera
