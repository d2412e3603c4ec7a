// What the metadata-only reads ask for, as parsed from /list and /aggregate bodies.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "filter/filter.h"
#include "query/projection.h"

namespace tessera {

struct OrderBy {
  std::string field;
  bool descending = false;
};

struct ListParams {
  std::vector<std::string> scope;
  Filter filter;
  uint32_t offset = 0;
  uint32_t limit = 100;
  Projection projection;
  std::optional<OrderBy> order_by;
};

struct AggregateParams {
  std::vector<std::string> scope;
  Filter filter;
  std::vector<std::string> sum;
  std::optional<std::string> group_by;
};

}  // namespace tessera
