// Records of one collection found by id at a snapshot's version: what /search/similar reads its
// source through, expand its neighbouring chunks, and Store::Get the records asked for.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/snapshot.h"
#include "tessera/cancel.h"

namespace tessera {

struct LiveRow {
  const Segment* segment = nullptr;  // null: no live record has the id
  uint32_t row = 0;
};

// The live row of each of ids (distinct), parallel to them. Sealed segments answer through their
// id index; segments without one (memory segments) are read once for all the ids still missing,
// polling cancel, so a lookup of many ids costs one pass over them rather than one per id.
std::vector<LiveRow> FindLiveRows(const CollectionState& c, uint64_t version, const std::vector<std::string_view>& ids,
                                  const CancelToken& cancel);

// Store::Get's answer: [{"id", "attrs"}] for each live one of ids, in their order, each id once;
// never a vector.
std::string LiveRecordsJson(const CollectionState& c, uint64_t version, const std::vector<std::string>& ids, const CancelToken& cancel);

}  // namespace tessera
