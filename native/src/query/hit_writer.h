// The spec's Hit array: {collection, id, score, attrs, annotations?} per candidate, attributes
// projected as the request asks.
#pragma once
#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

#include "query/candidate.h"
#include "query/projection.h"
#include "util/json_writer.h"

namespace tessera {

// Writes one hit's annotations object (explain, highlight).
using Annotator = std::function<void(JsonWriter& w, const Candidate& c)>;

// Writes candidates [offset, offset + limit), already in order, as a JSON hit array; with an
// annotator each hit carries "annotations".
void WriteHits(JsonWriter& w, const std::vector<Candidate>& candidates, size_t offset, size_t limit,
               const std::vector<std::string_view>& collection_names, const Projection& projection, const Annotator& annotate = nullptr);

// The same as a string of its own.
std::string HitsJson(const std::vector<Candidate>& candidates, size_t offset, size_t limit,
                     const std::vector<std::string_view>& collection_names, const Projection& projection,
                     const Annotator& annotate = nullptr);

}  // namespace tessera
