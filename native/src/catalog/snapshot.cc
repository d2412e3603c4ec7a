#include "catalog/snapshot.h"

#include "index/id_index.h"

namespace tessera {

const CollectionState* Snapshot::Resolve(const std::string& name) const {
  auto alias = aliases.find(name);
  auto it = collections.find(alias == aliases.end() ? name : alias->second);
  return it == collections.end() ? nullptr : it->second.get();
}

void FindLiveRow(const CollectionState& c, uint64_t version, std::string_view id, const Segment** seg, uint32_t* row) {
  for (const SegmentRef& ref : c.segments) {
    auto offer = [&](uint32_t r) {
      if (r < ref.rows && ref.segment->visible(r, version)) {
        *seg = ref.segment.get();
        *row = r;
      }
    };
    if (const IdIndexPtr& ids = ref.indexes->ids()) {
      ids->ForEachRow(*ref.segment, id, offer);
    } else {
      for (uint32_t r = 0; r < ref.rows && *seg == nullptr; ++r)
        if (ref.segment->row_id(r) == id) offer(r);
    }
    if (*seg != nullptr) return;
  }
}

}  // namespace tessera
