// Brute-force scoring of every visible row in scope, split across the query threads, each keeping
// a bounded heap of offset + top_k hits ordered by (score desc, collection, id).
#pragma once
#include <string>

#include "tessera/cancel.h"
#include "tessera/metric.h"
#include "tessera/request_parser.h"
#include "tessera/snapshot.h"
#include "tessera/thread_pool.h"

namespace tessera {

// Returns the hit array as JSON bytes.
std::string ExactSearch(const Snapshot& snap, const SearchParams& params, Metric metric, ThreadPool& pool,
                        const CancelToken& cancel);

}  // namespace tessera
