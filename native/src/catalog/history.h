// Version history: the files that keep past commit versions readable. With history on, every
// manifest the writer replaces is kept as MANIFEST.<commit version>-<valid from>.<sequence>, and the log a
// checkpoint empties is kept as wal.<from>-<to>.log (its records after version from, up to to).
// Version V is readable from the newest kept manifest at or before V plus the logs after it. The
// writer keeps what its last N versions need (and whatever those manifests name); everything older
// goes at its next checkpoint or compaction.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/manifest.h"

namespace tessera {

struct KeptManifest {
  uint64_t version;         // the oldest version it can be the base of (Manifest::valid_from)
  uint64_t commit_version;  // the log after this version completes it
  uint64_t sequence;        // orders manifests of one version (a compaction rewrites it)
  std::string name;         // "MANIFEST" for the current one
};

struct KeptLog {
  uint64_t from, to;  // holds versions (from, to]
  std::string name;   // "wal.log" for the current one, whose `to` is unknown (UINT64_MAX)
};

// What a store directory holds for history, oldest first; the current manifest and log included.
struct History {
  std::vector<KeptManifest> manifests;
  std::vector<KeptLog> logs;

  static History List(const std::string& dir);
  // The oldest version readable from these files: the oldest manifest's version whose logs reach
  // the current log without a gap, or 0 when they reach back to the empty store (a store that
  // never checkpointed, or whose first log is kept).
  uint64_t OldestReadable() const;
  // The newest kept manifest at or before version; nullopt when there is none.
  std::optional<KeptManifest> BaseFor(uint64_t version) const;
  // The history files to keep so that every version from oldest on stays readable (the current
  // manifest and log are always kept), and the manifests among them.
  std::set<std::string> Keep(uint64_t oldest, std::vector<KeptManifest>* manifests) const;
  // The next free sequence number.
  uint64_t NextSequence() const;
};

std::string KeptManifestName(const Manifest& manifest, uint64_t sequence);
// Whether name is a kept manifest or log.
bool IsHistoryFileName(const std::string& name);
std::string KeptLogName(uint64_t from, uint64_t to);

}  // namespace tessera
