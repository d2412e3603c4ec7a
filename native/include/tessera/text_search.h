// BM25 full-text search over declared fields, its fusion with vector search, and term completion.
// The formula and every rule the spec leaves open are in docs/full-text.md.
#pragma once
#include <string>

#include "tessera/exact_search.h"
#include "tessera/request_parser.h"

namespace tessera {

// Each returns JSON bytes: the hit array, or for Suggest {"suggestions": [...], "matched": n}.
std::string TextSearch(const QueryContext& ctx, const TextSearchParams& params);
std::string HybridSearch(const QueryContext& ctx, const HybridParams& params);
std::string Suggest(const QueryContext& ctx, const SuggestParams& params);

}  // namespace tessera
