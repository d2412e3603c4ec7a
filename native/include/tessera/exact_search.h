// Vector search by brute force: every visible row in scope that passes the filter is scored (with
// rank_by applied), split across the query threads, each keeping a bounded heap. Then limit_per
// and diversity reorder the window, and the page is cut once.
#pragma once
#include <string>

#include "tessera/cancel.h"
#include "tessera/hit_writer.h"
#include "tessera/metric.h"
#include "tessera/request_parser.h"
#include "tessera/snapshot.h"
#include "tessera/thread_pool.h"

namespace tessera {

struct QueryContext {
  const Snapshot& snap;
  Metric metric;
  ThreadPool& pool;
  const CancelToken& cancel;
};

struct RankedSearch {
  std::vector<const CollectionState*> scope;
  std::vector<Candidate> ranked;  // best first, limit_per and diversity applied
};

// The ranking /search computes before its page is cut (hybrid search's vector leg).
RankedSearch RankByVector(const QueryContext& ctx, const SearchParams& params);

// Each returns JSON bytes: the hit array (batch: {"results": [...]} or {"fused": [...]}).
std::string ExactSearch(const QueryContext& ctx, const SearchParams& params);
std::string SimilarSearch(const QueryContext& ctx, SimilarParams params);
std::string BatchSearch(const QueryContext& ctx, const BatchParams& batch);

}  // namespace tessera
