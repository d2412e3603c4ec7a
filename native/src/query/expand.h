// expand (spec: "expand and rollup"): a hit's chunk and `radius` chunks on either side of it,
// stitched into the hit's `context`. Payload only: it reads the hits of the final page, after
// every pass that ranks or thins them, so a page holds the same hits in the same order with it.
//
// A chunk is a stored record with a Str parent (parent_field), an Int index (index_field) and a
// Str text (text_field); a hit lacking one of them gets no context. Its neighbours are the chunks
// of its collection with the same parent and an index within radius of its own, as the query's
// snapshot holds them, read from the stored records (projection never hides them). Where every
// hit of a document on the page carries the store's chunk id ("{parent}#{index}", spec: Chunking
// rules), its neighbours are looked up by id; otherwise one filtered scan of the collection reads
// the chunks of every such document on the page.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/candidate.h"
#include "query/context.h"
#include "query/search_params.h"

namespace tessera {

// One chunk as stitching reads it.
struct ChunkText {
  int64_t index;
  std::optional<int64_t> char_start;  // svc.char_start: code points into the source text
  std::string_view text;
};

// Joins chunks (ascending index, one per index) into one string. A chunk that follows the previous
// index and whose offset lies within the text stitched so far (overlapping or touching it) adds
// only its characters past that text's end; any other join (a missing index, a chunk without a
// usable offset, a gap between the texts, offsets going backwards) is a blank line ("\n\n").
// Characters are code points.
std::string StitchChunks(const std::vector<ChunkText>& chunks);

// The context of each hit of ranked[offset, offset + limit) (the page a route writes), parallel to
// the page: nullopt for a hit that is not a chunk. Empty without expand. collection_names: the
// candidates' collections by index.
std::vector<std::optional<std::string>> ExpandPage(const QueryContext& ctx, const std::optional<ExpandParams>& expand,
                                                   const std::vector<Candidate>& ranked, size_t offset, size_t limit,
                                                   const std::vector<std::string_view>& collection_names);

}  // namespace tessera
