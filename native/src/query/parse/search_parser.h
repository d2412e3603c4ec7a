// Bodies of the vector search routes: POST /search, /search/similar and /search/batch.
#pragma once
#include <cstdint>
#include <string_view>

#include "query/search_params.h"
#include "tessera/options.h"

namespace tessera {

SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric);
SimilarParams ParseSimilar(std::string_view body);
BatchParams ParseBatch(std::string_view body, uint32_t dim, Metric metric);

}  // namespace tessera
