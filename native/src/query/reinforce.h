// A reinforced recall's write: each live record it returned is written again with its access
// stamps moved on. The stamps are read from the record as the writer sees it, so two recalls
// reinforcing one record both count.
#pragma once
#include <string>

#include "catalog/ops.h"
#include "catalog/snapshot.h"
#include "query/parse/write_parser.h"

namespace tessera {

// The upsert of the stamped copies of req.ids found live in collection c at snap's version (ids
// not found are skipped). Vectors are copied as stored, so scores do not move.
// Whether any of req.ids is live in c at snap's version (else a reinforcement writes nothing).
bool ReinforcesAny(const Snapshot& snap, const CollectionState& c, const ReinforceRequest& req);

UpsertOp ReinforceUpsert(const Snapshot& snap, const CollectionState& c, const ReinforceRequest& req, uint32_t dim);

}  // namespace tessera
