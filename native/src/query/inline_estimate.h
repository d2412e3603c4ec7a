// Whether a search is cheap enough to run on the thread that prepared it (the JS thread), where
// handing it to the query threads would cost more than the work (see kInlineMaxBytes).
#pragma once
#include "catalog/snapshot.h"
#include "query/search_params.h"
#include "query/text_params.h"
#include "query/text_search.h"
#include "query/vector_search.h"
#include "tessera/prepared_read.h"

namespace tessera {

// True when p asks for nothing beyond a plain ranked search (an expand only with radius 0) and the
// indexes of the segments in its scope, asked query, read at most bound's bytes together
// (kInlineMaxBytes, or kSyncMaxBytes for InlineBound::kSync; tessera/prepared_read.h). Looks at
// no more than a few dozen segments.
bool SearchRunsInline(const Snapshot& snap, const SearchParams& p, const SegmentQuery& query, InlineBound bound);

// Whether a text search is worth preparing where it arrives (PrepareText): no prefix expansion
// (which walks a field's whole vocabulary), nothing costlier than ranking and writing the window
// (filter, rank_by, limit_per, diversity, highlighting, expand with a radius), and few term
// lookups (kInlineMaxLookups).
// Error(404) for a collection in scope that does not exist, as the search itself would answer.
bool TextSearchMayRunInline(const Snapshot& snap, const TextSearchParams& params);
// Whether the prepared search then reads few enough postings (kInlineMaxPostings, or
// kSyncMaxPostings for InlineBound::kSync) and writes few enough record bytes (kInlineMaxWindow
// hits of the largest record in scope) to run there.
bool TextSearchRunsInline(const PreparedTextSearch& search, InlineBound bound);

}  // namespace tessera
