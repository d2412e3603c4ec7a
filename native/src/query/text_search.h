// BM25 full-text search over declared fields, and its fusion with vector search. The formula and
// every rule the spec leaves open are in docs/full-text.md.
#pragma once
#include <string>

#include "query/context.h"
#include "query/text_params.h"

namespace tessera {

// Each returns JSON bytes: the hit array.
std::string TextSearch(const QueryContext& ctx, const TextSearchParams& params);
std::string HybridSearch(const QueryContext& ctx, const HybridParams& params);

}  // namespace tessera
