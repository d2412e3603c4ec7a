// Bodies of the vector search routes: POST /search, /search/similar and /search/batch.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "query/search_params.h"
#include "tessera/options.h"

namespace tessera {

// query: the query vector passed beside the body as floats (the library's binary path), in which
// case the body must not carry one.
SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric, const std::vector<float>* query = nullptr);
SimilarParams ParseSimilar(std::string_view body);
BatchParams ParseBatch(std::string_view body, uint32_t dim, Metric metric);

}  // namespace tessera
