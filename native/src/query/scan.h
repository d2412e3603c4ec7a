// What every query over rows shares: resolving a scope to collections, and cutting their visible
// rows into tasks for the query threads.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/snapshot.h"
#include "filter/filter.h"
#include "index/row_range.h"
#include "tessera/cancel.h"
#include "util/thread_pool.h"

namespace tessera {

// Collections named by scope (aliases resolved one hop, duplicates dropped, unknown names
// contributing nothing), or every collection when scope is empty; sorted by name, so a scope
// index orders like its collection name.
std::vector<const CollectionState*> ResolveScope(const Snapshot& snap, const std::vector<std::string>& scope);

// The collections' names, indexed like the scope.
std::vector<std::string_view> ScopeNames(const std::vector<const CollectionState*>& scope);

struct ScanTask {
  // kWalk: the segment's approximate index answers for all its rows; kQuantized: its codes rank
  // the range first; kScan: every row scored exactly.
  enum Method : uint8_t { kScan, kQuantized, kWalk };

  uint32_t scope_index;  // into the resolved scope
  const SegmentRef* ref;
  uint32_t begin, end;
  Method method;

  const VectorIndex& index() const { return IndexOf(*ref, method); }

  // How a segment's rows are visited: by its approximate index when approximate and it has one,
  // else by its quantized codes when it has those, else scanned.
  static Method MethodOf(const SegmentRef& ref, bool approximate) {
    if (approximate && ref.indexes->ann()) return kWalk;
    return approximate && ref.indexes->first_pass() ? kQuantized : kScan;
  }
  static const VectorIndex& IndexOf(const SegmentRef& ref, Method method) {
    return method == kWalk ? *ref.indexes->ann() : method == kQuantized ? *ref.indexes->first_pass() : ref.indexes->vectors();
  }
};

// What the filter indexes in scope did with the filter (the plan's `narrowing`).
struct Narrowing {
  enum State { kInactive, kDeclined, kNarrowed } state = kInactive;
  uint64_t candidates = 0;  // rows the narrowed segments reduced to
};

// The rows a query visits: tasks in storage order (collection, segment, row), about four per
// thread so threads finish together, and for sealed segments whose filter index could narrow the
// filter, the candidate rows (ascending) to visit instead of every row. With approximate, a
// segment that has an approximate index is one task its index answers, and one with quantized
// codes is one task ranked by them first.
class ScanPlan {
 public:
  ScanPlan(const std::vector<const CollectionState*>& scope, size_t threads, const Filter& filter, bool approximate = false);

  const std::vector<ScanTask>& tasks() const { return tasks_; }
  RowRange Rows(const ScanTask& task) const;
  const Narrowing& narrowing() const { return narrowing_; }

 private:
  std::vector<ScanTask> tasks_;
  std::unordered_map<const Segment*, std::vector<uint32_t>> narrowed_;
  Narrowing narrowing_;
};

struct MatchedRow {
  uint32_t scope_index;
  const Segment* segment;
  uint32_t row;
};

// Visible rows of the scope that pass the filter, in storage order, found by the query threads.
std::vector<MatchedRow> MatchRows(const Snapshot& snap, const std::vector<const CollectionState*>& scope, const Filter& filter,
                                  ThreadPool& pool, const CancelToken& cancel);

}  // namespace tessera
