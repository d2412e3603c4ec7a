// Vector search over a scope: each segment's vector index (its approximate index when the store
// runs with one and it is built, else the exact scan) offers its rows, split across the query
// threads, into per-task windows; then limit_per and diversity reorder the merged window, and the
// page is cut once.
#pragma once
#include <string>
#include <vector>

#include "index/vector_index.h"
#include "query/candidate.h"
#include "query/context.h"
#include "query/query_plan.h"
#include "query/ranked_page.h"
#include "query/search_params.h"
#include "tessera/prepared_read.h"

namespace tessera {

struct RankedSearch {
  std::vector<const CollectionState*> scope;
  std::vector<Candidate> ranked;  // best first, limit_per and diversity applied
  QueryPlan plan;
};

// The query each segment's index is asked for p (window, ef, rescore, min_score), and whether
// approximate indexes may answer it: what a search runs, and what its cost estimate prices.
struct SegmentQuery {
  VectorQuery query;  // its vector points into p.query
  bool approximate;
};
SegmentQuery SegmentQueryOf(const SearchParams& p, Metric metric, const AnnConfig* ann, const QuantizationConfig* quantization);

// The ranking /search computes before its page is cut (hybrid search's vector leg).
RankedSearch RankByVector(const QueryContext& ctx, const SearchParams& params);
// The same as a page to write (a rerank's window).
RankedPage RankVectorPage(const QueryContext& ctx, const SearchParams& params);

// Each returns JSON bytes: the hit array (batch: {"results": [...]} or {"fused": [...]}).
std::string VectorSearch(const QueryContext& ctx, const SearchParams& params);
std::string SimilarSearch(const QueryContext& ctx, SimilarParams params);
std::string BatchSearch(const QueryContext& ctx, const BatchParams& batch);
// /search's page as arrays; Error(400) when params ask for more than hits (plan, expand).
HitList VectorHits(const QueryContext& ctx, const SearchParams& params);

}  // namespace tessera
