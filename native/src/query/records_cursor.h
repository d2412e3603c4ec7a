// GET /collections/{name}/records: every live record of one collection, as pieces of a single
// JSON array, read from a pinned snapshot so a long export never sees a half-applied batch and
// never blocks the writer.
#pragma once
#include <cstddef>
#include <string>

#include "catalog/snapshot.h"
#include "tessera/records_cursor.h"
#include "util/json_writer.h"

namespace tessera {

class CollectionRecordsCursor final : public RecordsCursor {
 public:
  CollectionRecordsCursor(SnapshotPtr snap, CollectionPtr collection, uint32_t dim);
  bool Next(size_t max_bytes, std::string* out) override;

 private:
  void WriteRecord(const Segment& seg, uint32_t row);
  void WriteVector(const float* v);

  SnapshotPtr snap_;
  CollectionPtr collection_;
  uint32_t dim_;
  size_t segment_ = 0;
  uint32_t row_ = 0;
  bool started_ = false;
  bool finished_ = false;
  std::string unused_;  // the writer's target between calls
  JsonWriter writer_;   // keeps the array open across pieces
};

}  // namespace tessera
