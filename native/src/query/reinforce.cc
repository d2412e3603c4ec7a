#include "query/reinforce.h"

#include <algorithm>
#include <set>

#include "query/live_rows.h"
#include "util/value.h"

namespace tessera {
namespace {

constexpr std::string_view kAccessCount = "svc.access_count";
constexpr std::string_view kLastAccessed = "svc.last_accessed";
constexpr std::string_view kExpiresAt = "svc.expires_at";

// The record's attributes with the stamps moved on; every other attribute as it was.
std::string StampedAttrs(std::string_view blob, const ReinforceRequest& req) {
  AttrEncoder enc;
  int64_t count = 0;
  AttrReader reader(blob);
  std::string_view key;
  ValueView value;
  while (reader.Next(&key, &value)) {
    if (key == kAccessCount && value.tag == ValueTag::kInt) count = value.i;
    if (key == kExpiresAt && value.tag == ValueTag::kDateTime && req.extend_ttl_ms) {
      // Extending never creates an expiry and never moves one back.
      enc.AddDateTime(key, std::max(value.i, req.now + *req.extend_ttl_ms));
      continue;
    }
    enc.Add(key, value);
  }
  enc.AddInt(kAccessCount, count + 1);
  enc.AddDateTime(kLastAccessed, req.now);
  return enc.Finish();
}

// The distinct ids of req (a record returned twice is reinforced once) and their live rows.
struct Found {
  std::vector<std::string_view> ids;
  std::vector<LiveRow> rows;
};

Found FindReinforced(const Snapshot& snap, const CollectionState& c, const ReinforceRequest& req) {
  std::set<std::string_view> distinct(req.ids.begin(), req.ids.end());
  Found found{std::vector<std::string_view>(distinct.begin(), distinct.end()), {}};
  CancelToken never;  // a handful of ids: the lookup is short
  found.rows = FindLiveRows(c, snap.version, found.ids, never);
  return found;
}

}  // namespace

bool ReinforcesAny(const Snapshot& snap, const CollectionState& c, const ReinforceRequest& req) {
  std::vector<LiveRow> rows = FindReinforced(snap, c, req).rows;
  return std::any_of(rows.begin(), rows.end(), [](const LiveRow& r) { return r.segment != nullptr; });
}

UpsertOp ReinforceUpsert(const Snapshot& snap, const CollectionState& c, const ReinforceRequest& req, uint32_t dim) {
  UpsertOp op;
  op.collection = c.name;
  auto [ids, rows] = FindReinforced(snap, c, req);
  for (size_t i = 0; i < ids.size(); ++i) {
    const Segment* seg = rows[i].segment;
    uint32_t row = rows[i].row;
    if (seg == nullptr) continue;
    RecordInput rec;
    rec.id = ids[i];
    auto copy = [&](const float* v) {
      size_t at = op.floats.size();
      op.floats.insert(op.floats.end(), v, v + dim);
      return at;
    };
    if (seg->has_vector(row)) rec.vector_offset = int64_t(copy(seg->vector(row)));
    for (const NamedColumn* named : seg->named_columns())
      if (named->has(row)) rec.named.push_back({named->name, copy(named->row(row, dim))});
    rec.attrs = StampedAttrs(seg->row_attrs(row), req);
    op.records.push_back(std::move(rec));
  }
  return op;
}

}  // namespace tessera
