// Whether a search is cheap enough to run on the thread that prepared it (the JS thread), where
// handing it to the query threads would cost more than the work (see kInlineMaxBytes).
#pragma once
#include "catalog/snapshot.h"
#include "query/search_params.h"

namespace tessera {

// True when p asks for nothing beyond a plain ranked scan and every segment of snap together
// holds at most kInlineMaxBytes of vectors, ids and attributes: then no path (exact, quantized or
// a walk) reads more than those bytes. Looks at no more than a few dozen segments.
bool SearchRunsInline(const Snapshot& snap, const SearchParams& p);

}  // namespace tessera
