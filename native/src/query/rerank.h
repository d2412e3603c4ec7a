// The core's two phases of a reranked read (tessera/rerank_window.h), over any ranked route: the
// route ranks its window with WindowParams, and the window keeps that ranking with its snapshot
// until the model's scores come back.
#pragma once
#include <memory>
#include <string>

#include "query/prepared_query.h"
#include "query/ranked_page.h"
#include "tessera/rerank_window.h"

namespace tessera {

// What the route ranks the window with: (offset + top_k) x rerank.overscan candidates from the
// top, limit_per left to the reranked order (capping first would keep each value's best by the
// first ranking, which the rerank could then never change), expand left to the page once cut.
// p itself when it asks for no rerank; Error(400) for a rerank without its query text.
SearchParams WindowParams(const SearchParams& p);

// The window of `page`, ranked by WindowParams(p), answering p once the scores come back (at once,
// as the plain read, when p asks for no rerank).
std::unique_ptr<RerankWindow> MakeRerankWindow(SnapshotPtr snap, const QueryEnvironment& env, RankedPage page, SearchParams p);

}  // namespace tessera
