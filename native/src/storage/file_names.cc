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

std::string SegmentCodesPath(const std::string& dir, uint64_t segment, const char* suffix) {
  return dir + "/" + SegmentBase(segment) + "." + suffix;
}

std::string DeletionsFileName(uint64_t segment, uint64_t version) { return SegmentBase(segment) + ".del." + std::to_string(version); }

std::vector<std::string> SegmentFileNames(uint64_t segment) {
  std::string base = SegmentBase(segment);
  std::vector<std::string> out = {base + ".vec", base + ".rows"};
  for (const char* derived : {".cols", ".hnsw", ".ivf", ".q8", ".qb"}) {
    out.push_back(base + derived);
    out.push_back(base + derived + ".tmp");
  }
  for (size_t k = 0; k < kMaxNamedVectors; ++k) out.push_back(base + ".nv" + std::to_string(k));
  return out;
}

bool IsSegmentFileName(const std::string& name) { return name.rfind("seg-", 0) == 0; }

}  // namespace tessera
