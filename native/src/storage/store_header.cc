#include "storage/store_header.h"

#include <cstdio>

#include "storage/file_names.h"
#include "tessera/error.h"
#include "util/file_util.h"

namespace tessera {

void WriteHeader(const std::string& dir, const StoreHeader& h) {
  std::string text = "tessera-store\nformat " + std::to_string(h.format) + "\ndimension " + std::to_string(h.dimension) + "\nmetric " +
                     MetricName(h.metric) + "\n";
  WriteFileAtomic(HeaderPath(dir), text);
}

std::optional<StoreHeader> ReadHeader(const std::string& dir) {
  std::string path = HeaderPath(dir);
  if (!FileExists(path)) return std::nullopt;
  std::string text = ReadWholeFile(path);
  char metric[32] = {0};
  unsigned format = 0, dimension = 0;
  if (std::sscanf(text.c_str(), "tessera-store\nformat %u\ndimension %u\nmetric %31s", &format, &dimension, metric) != 3)
    throw Internal("corrupt " + path + ": unreadable header");
  if (format != kFormatVersion)
    throw Internal("store format " + std::to_string(format) + " is not supported by this build (format " + std::to_string(kFormatVersion) +
                   ")");
  try {
    return StoreHeader{format, dimension, ParseMetric(metric)};
  } catch (const Error&) {
    throw Internal("corrupt " + path + ": unknown metric");
  }
}

}  // namespace tessera
