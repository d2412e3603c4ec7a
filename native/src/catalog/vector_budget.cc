#include "catalog/vector_budget.h"

#include "tessera/error.h"

namespace tessera {

uint64_t VectorBytesAdded(const Op& op, uint32_t dim) {
  const UpsertOp* upsert = std::get_if<UpsertOp>(&op);
  if (upsert == nullptr) return 0;
  uint64_t floats = 0;
  for (const RecordInput& rec : upsert->records) floats += uint64_t(dim) * (1 + rec.named.size());
  return floats * sizeof(float);
}

void CheckVectorBudget(const Op& op, uint32_t dim, uint64_t held, uint64_t limit) {
  uint64_t added = VectorBytesAdded(op, dim);
  if (added == 0 || held + added <= limit) return;
  const UpsertOp& upsert = std::get<UpsertOp>(op);
  throw Error(Status::kInsufficientStorage,
              "upsert of " + std::to_string(upsert.records.size()) + " records to '" + upsert.collection + "' refused: the store holds " +
                  std::to_string(held) + " vector bytes and the batch brings " + std::to_string(added) + " more, past max_vector_bytes " +
                  std::to_string(limit) +
                  " (--max-vector-bytes, or the maxVectorBytes open option); nothing was written. Delete records and compact, "
                  "or raise the limit");
}

}  // namespace tessera
