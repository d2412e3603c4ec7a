// include_attributes / exclude_attributes, applied where a hit is serialized.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

struct Projection {
  std::optional<std::vector<std::string>> include;
  std::optional<std::vector<std::string>> exclude;
  bool Keeps(std::string_view key) const {
    if (include) return std::find(include->begin(), include->end(), key) != include->end();
    if (exclude) return std::find(exclude->begin(), exclude->end(), key) == exclude->end();
    return true;
  }
};

}  // namespace tessera
