// Parses request bodies that carry vectors or Values (simdjson, in the core, so Int stays exact and
// no JS array of numbers is ever built). Every error is Error(400) naming the field and the fix.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/metric.h"
#include "tessera/ops.h"

namespace tessera {

enum class Pool { kMax, kSum };

struct SearchParams {
  std::vector<float> query;  // normalized for Cosine
  std::vector<std::string> scope;
  uint32_t top_k = 10;
  uint32_t offset = 0;
  std::optional<double> min_score;
  bool exact = false;
  std::optional<std::vector<std::string>> include_attributes;
  std::optional<std::vector<std::string>> exclude_attributes;
  std::vector<std::string> names;
  std::map<std::string, float> name_weights;
  Pool pool = Pool::kMax;
};

constexpr uint32_t kMaxRankDepth = 10000;

SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric);
UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric);
DeleteOp ParseDelete(std::string_view body, const std::string& collection);
std::map<std::string, std::string> ParseMeta(std::string_view body);
std::vector<std::string> ParseVectorNames(std::string_view body);
std::string ParseAliasTarget(std::string_view body);

}  // namespace tessera
