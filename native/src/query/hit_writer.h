// The spec's Hit array: {collection, id, score, attrs, annotations?, context?} per candidate,
// attributes projected as the request asks.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/candidate.h"
#include "query/projection.h"
#include "util/json_writer.h"

namespace tessera {

// Writes one hit's annotations object (explain, highlight).
using Annotator = std::function<void(JsonWriter& w, const Candidate& c)>;

// What the hits of a page carry beyond {collection, id, score, attrs}.
struct HitExtras {
  Annotator annotate;                                // null: no "annotations"
  std::vector<std::optional<std::string>> contexts;  // expand's, one per hit of the page; empty: no "context"
};

// Writes candidates [offset, offset + limit), already in order, as a JSON hit array; with an
// annotator each hit carries "annotations", and a hit with a context "context" after them.
void WriteHits(JsonWriter& w, const std::vector<Candidate>& candidates, size_t offset, size_t limit,
               const std::vector<std::string_view>& collection_names, const Projection& projection, const HitExtras& extras = {});

// The same as a string of its own.
std::string HitsJson(const std::vector<Candidate>& candidates, size_t offset, size_t limit,
                     const std::vector<std::string_view>& collection_names, const Projection& projection, const HitExtras& extras = {});

}  // namespace tessera
