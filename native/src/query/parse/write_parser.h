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

class ThreadPool;

// Caller-supplied svc.* attributes are dropped unless stamped: the store's own memory writes
// (remember) are the only stamped writes.
enum class ReservedKeys { kDrop, kKeep };
// A large body is read in parts on pool's threads, the caller's among them, when pool is given.
// The op is the same either way, and so is the error of a body refused.
UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric,
                     ReservedKeys reserved = ReservedKeys::kDrop, ThreadPool* pool = nullptr);
// Where ParseUpsert cuts a body into up to `parts` parts: the offsets of `},{"id":` joints between
// records near each part's end. None when the body is too small to be worth it (part_bytes a part)
// or not framed as {"records":[...]}. Tests cut small bodies with a small part_bytes.
constexpr size_t kUpsertPartBytes = 256 << 10;
// Parts per pool thread. A helper often starts its part 150-300 us after the caller (a parked
// thread's wake), and with one part each the caller then waits for it idle; with several, whoever
// is free claims the next. Measured, 1.65 MB bodies alternating in one process: the parse's mean
// 1,467-1,870 us with one part a thread, 1,138-1,359 with three (1,327 with two).
constexpr size_t kUpsertPartsPerThread = 3;
std::vector<size_t> UpsertCuts(std::string_view body, size_t parts, size_t part_bytes = kUpsertPartBytes);
// ParseUpsert's reading in parts, on the caller and pool's threads: the parts' records in order, or
// the first error a part raised (its record numbers count from the part's start).
UpsertOp ReadUpsertInParts(std::string_view body, const std::vector<size_t>& cuts, uint32_t dim, Metric metric, ReservedKeys reserved,
                           ThreadPool& pool);

// Stamps of a reinforced recall: svc.access_count + 1 and svc.last_accessed = now on each live id;
// with extend_ttl_ms, an existing svc.expires_at moves to now + extend_ttl_ms unless it is later.
struct ReinforceRequest {
  std::vector<std::string> ids;
  int64_t now = 0;  // epoch ms
  std::optional<int64_t> extend_ttl_ms;
};
ReinforceRequest ParseReinforce(std::string_view body);

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
