// Whether two upsert batches hold the same records: ids, attribute blobs, and vectors compared by
// value (their offsets in each batch's floats may differ).
#pragma once
#include <algorithm>
#include <cstdint>

#include "catalog/ops.h"

namespace tessera::test {

inline bool SameUpsert(const UpsertOp& a, const UpsertOp& b, uint32_t dim) {
  if (a.records.size() != b.records.size()) return false;
  auto same_vector = [&](size_t x, size_t y) {
    return x + dim <= a.floats.size() && y + dim <= b.floats.size() &&
           std::equal(a.floats.begin() + x, a.floats.begin() + x + dim, b.floats.begin() + y);
  };
  for (size_t i = 0; i < a.records.size(); ++i) {
    const RecordInput &x = a.records[i], &y = b.records[i];
    if (x.id != y.id || x.attrs != y.attrs || (x.vector_offset < 0) != (y.vector_offset < 0) || x.named.size() != y.named.size())
      return false;
    if (x.vector_offset >= 0 && !same_vector(size_t(x.vector_offset), size_t(y.vector_offset))) return false;
    for (size_t k = 0; k < x.named.size(); ++k)
      if (x.named[k].name != y.named[k].name || !same_vector(x.named[k].offset, y.named[k].offset)) return false;
  }
  return true;
}

}  // namespace tessera::test
