#include "storage/store_header.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "storage/file_names.h"
#include "tessera/error.h"
#include "util/file_util.h"

namespace tessera {
namespace {

// The "setting value" lines after the fixed ones.
IndexSettings ReadSettings(std::string_view lines) {
  IndexSettings settings;
  while (!lines.empty()) {
    size_t end = std::min(lines.find('\n'), lines.size());
    std::string_view line = lines.substr(0, end);
    lines.remove_prefix(std::min(end + 1, lines.size()));
    size_t space = line.find(' ');
    if (space != std::string_view::npos) SetIndexSetting(settings, line.substr(0, space), std::string(line.substr(space + 1)));
  }
  return settings;
}

}  // namespace

void WriteHeader(const std::string& dir, const StoreHeader& h) {
  std::string text = "tessera-store\nformat " + std::to_string(h.format) + "\ndimension " + std::to_string(h.dimension) + "\nmetric " +
                     MetricName(h.metric) + "\n";
  for (const auto& [name, value] : IndexSettingTexts(h.index)) text += std::string(name) + " " + value + "\n";
  WriteFileAtomic(HeaderPath(dir), text);
}

std::optional<StoreHeader> ReadHeader(const std::string& dir) {
  std::string path = HeaderPath(dir);
  if (!FileExists(path)) return std::nullopt;
  std::string text = ReadWholeFile(path);
  char metric[32] = {0};
  unsigned format = 0, dimension = 0;
  int fixed_end = 0;
  if (std::sscanf(text.c_str(), "tessera-store\nformat %u\ndimension %u\nmetric %31s%n", &format, &dimension, metric, &fixed_end) != 3)
    throw Internal("corrupt " + path + ": unreadable header");
  if (format != kFormatVersion)
    throw Internal("store format " + std::to_string(format) + " is not supported by this build (format " + std::to_string(kFormatVersion) +
                   ")");
  StoreHeader header{format, dimension, Metric::kCosine, ReadSettings(std::string_view(text).substr(fixed_end))};
  try {
    header.metric = ParseMetric(metric);
  } catch (const Error&) {
    throw Internal("corrupt " + path + ": unknown metric");
  }
  try {
    ResolveIndexConfig(header.index, IndexBase{}, header.metric);
  } catch (const SettingError& e) {
    throw Internal("corrupt " + path + ": the recorded " + e.what());
  }
  return header;
}

}  // namespace tessera
