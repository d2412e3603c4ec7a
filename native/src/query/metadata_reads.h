// Metadata-only reads: /list (filtered, optionally ordered, paged records with score 0) and
// /aggregate (count, sums, groups). Both read one snapshot on the query threads.
#pragma once
#include <string>

#include "query/context.h"
#include "query/metadata_params.h"

namespace tessera {

std::string ListRecords(const QueryContext& ctx, const ListParams& params);
std::string Aggregate(const QueryContext& ctx, const AggregateParams& params);

}  // namespace tessera
