#include "query/scan.h"

#include <algorithm>
#include <set>

#include "index/vector_index.h"
#include "util/row_bits.h"

namespace tessera {

std::vector<const CollectionState*> ResolveScope(const Snapshot& snap, const std::vector<std::string>& scope) {
  std::set<std::string> names;
  if (scope.empty()) {
    for (const auto& [name, c] : snap.collections) names.insert(name);
  } else {
    for (const std::string& n : scope)
      if (const CollectionState* c = snap.Find(n)) names.insert(c->name);
  }
  std::vector<const CollectionState*> out;
  for (const std::string& n : names) out.push_back(snap.collections.at(n).get());
  Snapshot::Reading(out);  // every collection missing at once, for one fetch
  return out;
}

std::vector<std::string_view> ScopeNames(const std::vector<const CollectionState*>& scope) {
  std::vector<std::string_view> out;
  for (const CollectionState* c : scope) out.push_back(c->name);
  return out;
}

ScanPlan::ScanPlan(const std::vector<const CollectionState*>& scope, size_t threads, const Filter& filter, bool approximate) {
  auto method = [&](const SegmentRef& ref) { return ScanTask::MethodOf(ref, approximate); };
  uint64_t total = 0;
  for (const CollectionState* c : scope)
    for (const SegmentRef& ref : c->segments) total += method(ref) == ScanTask::kScan ? ref.rows : 0;
  uint32_t per_task = uint32_t(std::clamp<uint64_t>(total / (threads * 4 + 1), 2048, 65536));
  bool declined = false;
  for (uint32_t s = 0; s < scope.size(); ++s) {
    for (const SegmentRef& ref : scope[s]->segments) {
      if (!filter.empty()) {
        if (const SegmentFilterIndexPtr& index = ref.indexes->filter()) {
          if (auto rows = index->Narrow(filter)) {
            narrowing_.candidates += rows->size();
            narrowed_.emplace(ref.segment.get(), std::move(*rows));
          } else {
            declined = true;
          }
        }
      }
      // A segment's index answers in one task: a walk, or a first pass whose best window x
      // rescore candidates of the whole segment are rescored.
      ScanTask::Method how = method(ref);
      if (how != ScanTask::kScan) {
        tasks_.push_back({s, &ref, 0, ref.rows, how});
        continue;
      }
      for (uint32_t b = 0; b < ref.rows; b += per_task) tasks_.push_back({s, &ref, b, std::min(ref.rows, b + per_task), how});
    }
  }
  if (!narrowed_.empty())
    narrowing_.state = Narrowing::kNarrowed;
  else if (declined)
    narrowing_.state = Narrowing::kDeclined;
}

RowRange ScanPlan::Rows(const ScanTask& task) const {
  auto narrowed = narrowed_.find(task.ref->segment.get());
  return RowRange{task.begin, task.end, narrowed == narrowed_.end() ? nullptr : &narrowed->second};
}

std::vector<MatchedRow> MatchRows(const Snapshot& snap, const std::vector<const CollectionState*>& scope, const Filter& filter,
                                  ThreadPool& pool, const CancelToken& cancel) {
  ScanPlan plan(scope, pool.size(), filter);
  std::vector<std::vector<MatchedRow>> found(plan.tasks().size());
  pool.ParallelFor(plan.tasks().size(), [&](size_t t) {
    const ScanTask& task = plan.tasks()[t];
    const Segment& segment = *task.ref->segment;
    RowFilter admit(segment, snap.version, task.ref->deleted_rows, filter, std::nullopt);
    RowRange range = plan.Rows(task);
    // Without filter-index candidates, the segment's columns narrow the range first: rows they
    // rule out are never read, and when they decide the filter exactly no row is tested again.
    RowBits narrowed;
    Narrowed how = Narrowed::kNone;
    if (!range.narrowed && admit.filtered()) {
      narrowed.Reset(range.begin, range.end);
      how = admit.Narrow(narrowed);
    }
    auto add = [&](uint32_t r) {
      if (admit.Visible(r) && (how == Narrowed::kExact || admit.Admits(r))) found[t].push_back({task.scope_index, &segment, r});
    };
    if (how == Narrowed::kNone) return ForEachRow(range, cancel, add);
    uint32_t seen = 0;
    narrowed.ForEach([&](uint32_t r) {
      if (seen++ % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      add(r);
    });
  });
  std::vector<MatchedRow> out;
  for (auto& f : found) out.insert(out.end(), f.begin(), f.end());
  return out;
}

}  // namespace tessera
