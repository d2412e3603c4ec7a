// Bodies of the record writes: POST /collections/{name}/upsert and /delete, and POST /compact.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/ops.h"
#include "filter/filter.h"
#include "tessera/options.h"

namespace tessera {

UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric);

// A delete names ids, or a filter (which wins when both are sent).
struct DeleteRequest {
  std::vector<std::string> ids;
  std::optional<Filter> filter;
};
DeleteRequest ParseDelete(std::string_view body);

struct CompactRequest {
  bool expired = false;  // delete expired entries first
};
// An empty body is a plain compaction.
CompactRequest ParseCompact(std::string_view body);

}  // namespace tessera
