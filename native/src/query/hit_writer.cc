#include "query/hit_writer.h"

#include <algorithm>

#include "util/value.h"

namespace tessera {

void WriteHits(JsonWriter& w, const std::vector<Candidate>& candidates, size_t offset, size_t limit,
               const std::vector<std::string_view>& collection_names, const Projection& projection, const Annotator& annotate) {
  auto keeps = [&](std::string_view key) { return projection.Keeps(key); };
  JsonWriter::Scope hits = w.Array();
  size_t end = std::min(candidates.size(), offset + limit);
  for (size_t i = offset; i < end; ++i) {
    const Candidate& c = candidates[i];
    JsonWriter::Scope hit = w.Object();
    w.Member("collection", collection_names[c.collection]);
    w.Member("id", c.id);
    w.Member("score", c.score);
    w.Key("attrs");
    WriteAttrsJson(w, c.segment->row_attrs(c.row), keeps);
    if (annotate) {
      w.Key("annotations");
      annotate(w, c);
    }
  }
}

std::string HitsJson(const std::vector<Candidate>& candidates, size_t offset, size_t limit,
                     const std::vector<std::string_view>& collection_names, const Projection& projection, const Annotator& annotate) {
  return JsonText([&](JsonWriter& w) { WriteHits(w, candidates, offset, limit, collection_names, projection, annotate); });
}

}  // namespace tessera
