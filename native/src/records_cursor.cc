#include "tessera/records_cursor.h"

#include "tessera/hit_writer.h"
#include "tessera/json_writer.h"

namespace tessera {

RecordsCursor::RecordsCursor(SnapshotPtr snap, CollectionPtr collection, uint32_t dim)
    : snap_(std::move(snap)), collection_(std::move(collection)), dim_(dim) {}

bool RecordsCursor::Next(size_t max_bytes, std::string* out) {
  if (finished_) return false;
  size_t start = out->size();
  JsonWriter w(out);
  if (!started_) {
    w.Char('[');
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
    const Segment& seg = *ref.segment;
    uint32_t r = row_++;
    if (!seg.visible(r, snap_->version)) continue;
    if (any_) w.Char(',');
    any_ = true;
    w.Raw("{\"id\":");
    w.String(seg.row_id(r));
    w.Raw(",\"vector\":");
    auto write_vector = [&](const float* v) {
      w.Char('[');
      for (uint32_t i = 0; i < dim_; ++i) {
        if (i) w.Char(',');
        w.Float(v[i]);
      }
      w.Char(']');
    };
    if (seg.has_vector(r)) write_vector(seg.vector(r));
    else w.Raw("null");
    bool any_named = false;
    for (const NamedColumn* c : seg.named_columns()) {
      if (!c->has(r)) continue;
      w.Raw(any_named ? "," : ",\"vectors\":{");
      any_named = true;
      w.Key(c->name);
      write_vector(c->row(r, dim_));
    }
    if (any_named) w.Char('}');
    w.Raw(",\"attrs\":");
    WriteAttrs(w, seg.row_attrs(r), nullptr);
    w.Char('}');
  }
  if (segment_ >= segments.size()) {
    w.Char(']');
    finished_ = true;
  }
  return true;
}

}  // namespace tessera
