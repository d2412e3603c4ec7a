#include "query/hit_writer.h"

#include <algorithm>

#include "util/value.h"

namespace tessera {
namespace {

// A hit's attributes as the projection keeps them. Named ones (include_attributes) are read from
// the segment's columns when the segment has every name it holds as a column with arrays and its
// rows list names in column order, so the columns give them in the blob's order; otherwise, and
// for whole or excluding projections, the row's blob is written.
class AttrsWriter {
 public:
  explicit AttrsWriter(const Projection& projection) : projection_(projection) {}

  void Write(JsonWriter& w, const Candidate& c) {
    if (c.segment != segment_) Bind(*c.segment);
    if (!from_columns_) return WriteAttrsJson(w, c.segment->row_attrs(c.row), [&](std::string_view key) { return projection_.Keeps(key); });
    JsonWriter::Scope object = w.Object();
    ValueView v;
    for (const AttrColumn* column : columns_) {
      if (!column->Get(c.row, &v)) continue;
      w.Key(column->name);
      WriteValueJson(w, v);
    }
  }

 private:
  void Bind(const Segment& segment) {
    segment_ = &segment;
    columns_.clear();
    const SegmentColumns* columns = segment.columns();
    from_columns_ = projection_.include && columns && columns->ordered();
    if (!from_columns_) return;
    for (const std::string& name : *projection_.include) {
      const AttrColumn* column = columns->Find(name);
      if (column == nullptr) continue;  // no row holds it
      if (column->in_blob()) {
        from_columns_ = false;
        return;
      }
      columns_.push_back(column);
    }
    std::sort(columns_.begin(), columns_.end(), [](const AttrColumn* a, const AttrColumn* b) { return a->index < b->index; });
    columns_.erase(std::unique(columns_.begin(), columns_.end()), columns_.end());
  }

  const Projection& projection_;
  const Segment* segment_ = nullptr;
  bool from_columns_ = false;
  std::vector<const AttrColumn*> columns_;  // the included names' columns in column order
};

}  // namespace

void WriteHits(JsonWriter& w, const std::vector<Candidate>& candidates, size_t offset, size_t limit,
               const std::vector<std::string_view>& collection_names, const Projection& projection, const HitExtras& extras) {
  AttrsWriter attrs(projection);
  size_t end = std::min(candidates.size(), offset + limit);
  // The hits' records lie at random in the segments, often out of cache after a walk or a large
  // scan: asked for together, their misses overlap instead of coming one hit at a time.
  for (size_t i = offset; i < end; ++i) candidates[i].segment->PrefetchRecord(candidates[i].row);
  JsonWriter::Scope hits = w.Array();
  for (size_t i = offset; i < end; ++i) {
    const Candidate& c = candidates[i];
    JsonWriter::Scope hit = w.Object();
    w.Member("collection", collection_names[c.collection]);
    w.Member("id", c.id());
    w.Member("score", c.score);
    w.Key("attrs");
    attrs.Write(w, c);
    if (extras.annotate) {
      w.Key("annotations");
      extras.annotate(w, c);
    }
    if (!extras.contexts.empty() && extras.contexts[i - offset]) w.Member("context", *extras.contexts[i - offset]);
  }
}

std::string HitsJson(const std::vector<Candidate>& candidates, size_t offset, size_t limit,
                     const std::vector<std::string_view>& collection_names, const Projection& projection, const HitExtras& extras) {
  return JsonText([&](JsonWriter& w) { WriteHits(w, candidates, offset, limit, collection_names, projection, extras); });
}

}  // namespace tessera
