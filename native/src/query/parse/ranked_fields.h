// The fields every search-shaped body shares (/search, /search/similar, a /search/batch leg,
// /text-search, /hybrid-search): scope, paging, filter, projection and the ranking passes. Each
// route accepts its own subset; a field outside it is refused naming the allowed ones.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "query/search_params.h"
#include "tessera/options.h"

namespace tessera {

enum class SearchKind { kSearch, kSimilar, kBatchLeg, kText, kHybrid };

// Consumes one field of a /search-shaped body into p; prefix names where the body sits
// ("queries[2]." in a batch). *has_query is set when the query vector was read.
void ReadSearchField(std::string_view key, simdjson::dom::element value, SearchParams& p, SearchKind kind, const std::string& prefix,
                     uint32_t dim, Metric metric, bool* has_query);

// Rules across fields, checked once the whole body is read.
void CheckSearch(const SearchParams& p, const std::string& prefix);

}  // namespace tessera
