#include "query/live_rows.h"

#include <unordered_map>

namespace tessera {

std::vector<LiveRow> FindLiveRows(const CollectionState& c, uint64_t version, const std::vector<std::string_view>& ids,
                                  const CancelToken& cancel) {
  std::vector<LiveRow> found(ids.size());
  // The ids not found yet, by id; at most one row of an id is visible at a version.
  std::unordered_map<std::string_view, size_t> missing;
  for (size_t i = 0; i < ids.size(); ++i) missing.emplace(ids[i], i);
  for (const SegmentRef& ref : c.segments) {
    if (missing.empty()) break;
    const Segment& seg = *ref.segment;
    auto offer = [&](uint32_t r) {
      if (r >= ref.rows || !seg.visible(r, version)) return;
      auto it = missing.find(seg.row_id(r));
      if (it == missing.end()) return;
      found[it->second] = LiveRow{&seg, r};
      missing.erase(it);
    };
    if (const IdIndexPtr& index = ref.indexes->ids()) {
      for (auto it = missing.begin(); it != missing.end();) {
        std::string_view id = (it++)->first;  // offer may erase the entry it names
        index->ForEachRow(seg, id, offer);
      }
      continue;
    }
    for (uint32_t r = 0; r < ref.rows && !missing.empty(); ++r) {
      if (r % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      offer(r);
    }
  }
  return found;
}

}  // namespace tessera
