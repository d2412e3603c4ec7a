// Streams every live record of one collection, as pieces of a single JSON array, from a pinned
// snapshot so a long export never sees a half-applied batch and never blocks the writer.
#pragma once
#include <cstddef>
#include <string>

#include "tessera/snapshot.h"

namespace tessera {

class RecordsCursor {
 public:
  RecordsCursor(SnapshotPtr snap, CollectionPtr collection, uint32_t dim);
  // Appends the next piece (at least one record, about max_bytes) to out; false once exhausted.
  bool Next(size_t max_bytes, std::string* out);

 private:
  SnapshotPtr snap_;
  CollectionPtr collection_;
  uint32_t dim_;
  size_t segment_ = 0;
  uint32_t row_ = 0;
  bool started_ = false;
  bool finished_ = false;
  bool any_ = false;
};

}  // namespace tessera
