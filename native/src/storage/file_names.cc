#include "storage/file_names.h"

namespace tessera {
namespace {

std::string SegmentBase(uint64_t segment) { return "seg-" + std::to_string(segment); }

}  // namespace

std::string HeaderPath(const std::string& dir) { return dir + "/HEADER"; }
std::string LockPath(const std::string& dir) { return dir + "/LOCK"; }
std::string WalPath(const std::string& dir) { return dir + "/wal.log"; }
std::string ManifestPath(const std::string& dir) { return dir + "/MANIFEST"; }

std::string SegmentVectorsPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".vec"; }
std::string SegmentRowsPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".rows"; }
std::string SegmentNamedPath(const std::string& dir, uint64_t segment, size_t column) {
  return dir + "/" + SegmentBase(segment) + ".nv" + std::to_string(column);
}

std::string SegmentColumnsPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".cols"; }

std::string SegmentHnswPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".hnsw"; }
std::string SegmentIvfPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".ivf"; }
std::string SegmentTextPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".text"; }
std::string SegmentFilterPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".filter"; }
std::string SegmentIdsPath(const std::string& dir, uint64_t segment) { return dir + "/" + SegmentBase(segment) + ".ids"; }

std::string SegmentCodesPath(const std::string& dir, uint64_t segment, const char* suffix) {
  return dir + "/" + SegmentBase(segment) + "." + suffix;
}

std::string DeletionsFileName(uint64_t segment, uint64_t version) { return SegmentBase(segment) + ".del." + std::to_string(version); }

std::vector<std::string> SegmentFileNames(uint64_t segment) {
  std::string base = SegmentBase(segment);
  std::vector<std::string> out;
  for (const char* kind : {".vec", ".rows", ".cols", ".hnsw", ".ivf", ".q8", ".qb", ".text", ".filter", ".ids"}) out.push_back(base + kind);
  for (size_t k = 0; k < kMaxNamedVectors; ++k) out.push_back(base + ".nv" + std::to_string(k));
  // Every file is written under its .tmp name first, by a build or a compaction that may run
  // while a checkpoint cleans up.
  for (size_t i = 0, n = out.size(); i < n; ++i) out.push_back(out[i] + ".tmp");
  return out;
}

bool IsSegmentFileName(const std::string& name) { return name.rfind("seg-", 0) == 0; }

}  // namespace tessera
