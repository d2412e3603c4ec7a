#include "tessera/hit_writer.h"

#include <algorithm>

#include "tessera/json_writer.h"
#include "tessera/value.h"

namespace tessera {

void CandidateHeap::Offer(const Candidate& c) {
  auto later = [](const Candidate& a, const Candidate& b) { return RanksBefore(a, b); };
  if (capacity_ == 0) return;
  if (heap_.size() < capacity_) {
    heap_.push_back(c);
    std::push_heap(heap_.begin(), heap_.end(), later);
  } else if (RanksBefore(c, heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.back() = c;
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
}

void WriteAttrs(JsonWriter& w, std::string_view blob, const Projection* projection) {
  w.Char('{');
  AttrReader reader(blob);
  std::string_view key;
  ValueView value;
  bool first = true;
  while (reader.Next(&key, &value)) {
    if (projection && !projection->Keeps(key)) continue;
    if (!first) w.Char(',');
    first = false;
    w.Key(key);
    WriteValueJson(w, value);
  }
  w.Char('}');
}

std::string WriteHits(const std::vector<Candidate>& candidates, size_t offset, size_t limit,
                      const std::vector<std::string_view>& collection_names, const Projection& projection,
                      const Annotator& annotate) {
  std::string out = "[";
  JsonWriter w(&out);
  size_t end = std::min(candidates.size(), offset + limit);
  for (size_t i = offset; i < end; ++i) {
    const Candidate& c = candidates[i];
    if (i > offset) w.Char(',');
    w.Raw("{\"collection\":");
    w.String(collection_names[c.collection]);
    w.Raw(",\"id\":");
    w.String(c.id);
    w.Raw(",\"score\":");
    w.Float(c.score);
    w.Raw(",\"attrs\":");
    WriteAttrs(w, c.segment->row_attrs(c.row), &projection);
    if (annotate) {
      w.Raw(",\"annotations\":");
      annotate(w, c);
    }
    w.Char('}');
  }
  w.Char(']');
  return out;
}

}  // namespace tessera
