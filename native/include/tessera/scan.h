// What every query over rows shares: resolving a scope to collections, and cutting their visible
// rows into tasks for the query threads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <string>
#include <vector>

#include "tessera/cancel.h"
#include "tessera/filter.h"
#include "tessera/snapshot.h"
#include "tessera/thread_pool.h"

namespace tessera {

constexpr uint32_t kRowsPerCancelCheck = 4096;

struct ScanTask {
  uint32_t scope_index;  // into the resolved scope
  const Segment* segment;
  uint32_t begin, end;
};

// Collections named by scope (aliases resolved one hop, duplicates dropped, unknown names
// contributing nothing), or every collection when scope is empty; sorted by name, so a scope
// index orders like its collection name.
std::vector<const CollectionState*> ResolveScope(const Snapshot& snap, const std::vector<std::string>& scope);

// The rows a query visits: tasks in storage order (collection, segment, row), about four per
// thread so threads finish together, and for sealed segments whose filter index could narrow the
// filter, the candidate rows (ascending) to visit instead of every row.
struct ScanPlan {
  std::vector<ScanTask> tasks;
  std::unordered_map<const Segment*, std::vector<uint32_t>> narrowed;
};

ScanPlan PlanScan(const std::vector<const CollectionState*>& scope, size_t threads, const Filter& filter);

// Calls fn(row) for each row of the task the plan visits, polling the cancel token as it goes.
template <typename Fn>
void ForEachPlannedRow(const ScanPlan& plan, const ScanTask& task, const CancelToken& cancel, Fn&& fn) {
  auto narrowed = plan.narrowed.find(task.segment);
  if (narrowed == plan.narrowed.end()) {
    for (uint32_t r = task.begin; r < task.end; ++r) {
      if ((r - task.begin) % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      fn(r);
    }
    return;
  }
  const std::vector<uint32_t>& rows = narrowed->second;
  auto it = std::lower_bound(rows.begin(), rows.end(), task.begin);
  for (size_t n = 0; it != rows.end() && *it < task.end; ++it, ++n) {
    if (n % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
    fn(*it);
  }
}

struct MatchedRow {
  uint32_t scope_index;
  const Segment* segment;
  uint32_t row;
};

// Visible rows of the scope that pass the filter, in storage order, found by the query threads.
std::vector<MatchedRow> MatchRows(const Snapshot& snap, const std::vector<const CollectionState*>& scope,
                                  const Filter& filter, ThreadPool& pool, const CancelToken& cancel);

}  // namespace tessera
