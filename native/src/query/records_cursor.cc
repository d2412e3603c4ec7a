#include "query/records_cursor.h"

#include "util/value.h"

namespace tessera {

CollectionRecordsCursor::CollectionRecordsCursor(SnapshotPtr snap, CollectionPtr collection, uint32_t dim)
    : snap_(std::move(snap)), collection_(std::move(collection)), dim_(dim), writer_(&unused_) {}

bool CollectionRecordsCursor::Next(size_t max_bytes, std::string* out) {
  if (finished_) return false;
  size_t start = out->size();
  writer_.Retarget(out);
  if (!started_) {
    writer_.BeginArray();
    started_ = true;
  }
  const auto& segments = collection_->segments;
  while (segment_ < segments.size() && out->size() - start < max_bytes) {
    const SegmentRef& ref = segments[segment_];
    if (row_ >= ref.rows) {
      ++segment_;
      row_ = 0;
      continue;
    }
    uint32_t r = row_++;
    if (ref.segment->visible(r, snap_->version)) WriteRecord(*ref.segment, r);
  }
  if (segment_ >= segments.size()) {
    writer_.EndArray();
    finished_ = true;
  }
  writer_.Retarget(&unused_);
  return true;
}

void CollectionRecordsCursor::WriteRecord(const Segment& seg, uint32_t r) {
  JsonWriter& w = writer_;
  JsonWriter::Scope record = w.Object();
  w.Member("id", seg.row_id(r));
  w.Key("vector");
  if (seg.has_vector(r))
    WriteVector(seg.vector(r));
  else
    w.Null();
  bool any_named = false;
  for (const NamedColumn* c : seg.named_columns()) {
    if (!c->has(r)) continue;
    if (!any_named) {
      w.Key("vectors");
      w.BeginObject();
      any_named = true;
    }
    w.Key(c->name);
    WriteVector(c->row(r, dim_));
  }
  if (any_named) w.EndObject();
  w.Key("attrs");
  WriteAttrsJson(w, seg.row_attrs(r), [](std::string_view) { return true; });
}

void CollectionRecordsCursor::WriteVector(const float* v) {
  JsonWriter::Scope vector = writer_.Array();
  for (uint32_t i = 0; i < dim_; ++i) writer_.Float(v[i]);
}

}  // namespace tessera
