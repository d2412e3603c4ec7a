#include "query/live_rows.h"

#include <unordered_map>
#include <unordered_set>

#include "util/id_hash.h"
#include "util/json_writer.h"
#include "util/value.h"

namespace tessera {
namespace {

constexpr uint32_t kPrefetchRows = 16;

}  // namespace

std::vector<LiveRow> FindLiveRows(const CollectionState& c, uint64_t version, const std::vector<std::string_view>& ids,
                                  const CancelToken& cancel) {
  std::vector<LiveRow> found(ids.size());
  // The ids not found yet, by id; at most one row of an id is visible at a version. Hashed with
  // IdHash: under std::hash libstdc++ finds in a map of up to 20 entries by comparing every key,
  // which made a pass over a memory segment's ids take 1.4 times as long.
  struct Hash {
    size_t operator()(std::string_view id) const { return size_t(IdHash(id)); }
  };
  std::unordered_map<std::string_view, size_t, Hash> missing;
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
      // A memory segment's ids lie between their rows' attributes, a cache miss each: asking for
      // rows ahead keeps several misses in flight.
      if (r + kPrefetchRows < ref.rows) __builtin_prefetch(seg.row_id(r + kPrefetchRows).data());
      offer(r);
    }
  }
  return found;
}

std::string LiveRecordsJson(const CollectionState& c, uint64_t version, const std::vector<std::string>& ids, const CancelToken& cancel) {
  std::vector<std::string_view> distinct;  // FindLiveRows takes each id once; the first asking keeps its place
  std::unordered_set<std::string_view> seen;
  for (const std::string& id : ids)
    if (seen.insert(id).second) distinct.push_back(id);
  std::vector<LiveRow> rows = FindLiveRows(c, version, distinct, cancel);
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope records = w.Array();
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (rows[i].segment == nullptr) continue;
      JsonWriter::Scope record = w.Object();
      w.Member("id", distinct[i]);
      w.Key("attrs");
      WriteAttrsJson(w, rows[i].segment->row_attrs(rows[i].row), [](std::string_view) { return true; });
    }
  });
}

}  // namespace tessera
