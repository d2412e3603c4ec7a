// A ranked route's ranking before its page is cut, and the page written from it. The page is cut
// once: by the route itself, or after a rerank has re-ordered the window (query/rerank.h).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/candidate.h"
#include "query/context.h"
#include "query/hit_writer.h"
#include "query/query_plan.h"
#include "query/search_params.h"

namespace tessera {

struct RankedPage {
  std::vector<std::string_view> names;  // the scope's collection names, by Candidate::collection
  std::vector<Candidate> ranked;        // best first, limit_per and diversity applied as asked
  // The annotator of the page's hits against the context they are written in; null: none. It owns
  // what it reads (a text query's prepared terms), so the page may be written after the ranking.
  std::function<Annotator(const QueryContext&)> annotator;
  std::optional<QueryPlan> plan;  // the vector leg's, answered with plan: true
};

// ranked[offset, offset + top_k) as p asks (projection, expand, annotations) as a JSON hit array,
// or {"hits": [...], "plan": {...}} when p.plan and the ranking has a plan.
std::string PageJson(const QueryContext& ctx, const RankedPage& page, const SearchParams& p);

}  // namespace tessera
