#include "catalog/history.h"

#include <algorithm>
#include <cstdio>

#include "util/file_util.h"

namespace tessera {

uint64_t ValidFrom(const Manifest& m) { return std::max(m.commit_version, m.valid_from); }

std::string KeptManifestName(const Manifest& m, uint64_t sequence) {
  return "MANIFEST." + std::to_string(m.commit_version) + "-" + std::to_string(ValidFrom(m)) + "." + std::to_string(sequence);
}

std::string KeptLogName(uint64_t from, uint64_t to) { return "wal." + std::to_string(from) + "-" + std::to_string(to) + ".log"; }

namespace {

// Parses a kept file's name into n: 'm' for a manifest (3 numbers), 'l' for a log (2), 0 for neither.
char ParseHistoryName(const std::string& name, uint64_t n[3]) {
  unsigned long long x = 0, y = 0, z = 0;
  int end = 0;
  if (std::sscanf(name.c_str(), "MANIFEST.%llu-%llu.%llu%n", &x, &y, &z, &end) == 3 && size_t(end) == name.size()) {
    n[0] = x, n[1] = y, n[2] = z;
    return 'm';
  }
  end = 0;
  if (std::sscanf(name.c_str(), "wal.%llu-%llu.log%n", &x, &y, &end) == 2 && size_t(end) == name.size()) {
    n[0] = x, n[1] = y;
    return 'l';
  }
  return 0;
}

}  // namespace

bool IsHistoryFileName(const std::string& name) {
  uint64_t n[3];
  return ParseHistoryName(name, n) != 0;
}

History History::List(const std::string& dir) {
  History h;
  for (const std::string& name : ListDir(dir)) {
    uint64_t n[3] = {0, 0, 0};
    char kind = ParseHistoryName(name, n);
    if (kind == 'm') h.manifests.push_back({n[1], n[0], n[2], name});
    if (kind == 'l') h.logs.push_back({n[0], n[1], name});
  }
  // The current log holds what came after the current manifest (everything, before the first).
  std::optional<Manifest> current = ReadManifest(dir);
  if (current) h.manifests.push_back({ValidFrom(*current), current->commit_version, UINT64_MAX, "MANIFEST"});
  h.logs.push_back({current ? current->commit_version : 0, UINT64_MAX, "wal.log"});
  auto by_version = [](const auto& x, const auto& y) { return x.version != y.version ? x.version < y.version : x.sequence < y.sequence; };
  std::sort(h.manifests.begin(), h.manifests.end(), by_version);
  std::sort(h.logs.begin(), h.logs.end(), [](const KeptLog& x, const KeptLog& y) { return x.from < y.from; });
  return h;
}

uint64_t History::OldestReadable() const {
  if (manifests.empty()) return 0;  // never checkpointed: the log holds every version
  // Walk back from the current log while each log begins where an older one ends.
  uint64_t reach = logs.back().from;
  for (auto it = logs.rbegin() + 1; it != logs.rend() && it->to == reach; ++it) reach = it->from;
  if (reach == 0) return 0;  // the logs go back to the empty store: every version replays from it
  uint64_t oldest = manifests.back().version;
  for (const KeptManifest& m : manifests)
    if (m.commit_version >= reach) oldest = std::min(oldest, m.version);
  return oldest;
}

std::optional<KeptManifest> History::BaseFor(uint64_t version) const {
  std::optional<KeptManifest> base;
  for (const KeptManifest& m : manifests)
    if (m.version <= version) base = m;
  return base;
}

std::set<std::string> History::Keep(uint64_t oldest, std::vector<KeptManifest>* kept) const {
  std::optional<KeptManifest> base = BaseFor(oldest);
  uint64_t from = base ? base->version : 0;
  uint64_t logs_from = base ? base->commit_version : 0;
  std::set<std::string> names;
  for (size_t i = 0; i < manifests.size(); ++i) {
    const KeptManifest& m = manifests[i];
    // Of the manifests of one version (compactions rewrite it) the newest serves; sorted by
    // (version, sequence), it is the last of its run.
    bool superseded = i + 1 < manifests.size() && manifests[i + 1].version == m.version;
    if (m.version < from || superseded) continue;
    names.insert(m.name);
    kept->push_back(m);
  }
  for (const KeptLog& l : logs)
    if (l.to > logs_from) names.insert(l.name);
  return names;
}

uint64_t History::NextSequence() const {
  uint64_t next = 0;
  for (const KeptManifest& m : manifests)
    if (m.sequence != UINT64_MAX) next = std::max(next, m.sequence + 1);
  return next;
}

}  // namespace tessera
