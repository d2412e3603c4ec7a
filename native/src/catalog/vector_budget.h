// The spec's max_vector_bytes guard (Errors 507, Limits "vector memory"): an upsert whose vectors
// would take the store's vector bytes past the opener's limit is refused whole, before it is logged
// or applied, so a refused batch changes nothing.
#pragma once
#include <cstdint>

#include "catalog/ops.h"

namespace tessera {

// Bytes of vectors op brings: every record's slot (dim floats whether it carries a vector or not,
// as footprint.vector_bytes counts rows) and each named vector it carries. 0 for any other op.
uint64_t VectorBytesAdded(const Op& op, uint32_t dim);

// Throws Error(507) naming the limit and how to set it when held + VectorBytesAdded(op) passes
// limit. held is what the store holds now (VersionSet::vector_bytes).
void CheckVectorBudget(const Op& op, uint32_t dim, uint64_t held, uint64_t limit);

}  // namespace tessera
