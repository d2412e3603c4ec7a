// Bodies of the full-text routes: POST /text-search, /hybrid-search and /suggest.
#pragma once
#include <cstdint>
#include <string_view>

#include "query/text_params.h"
#include "tessera/options.h"

namespace tessera {

TextSearchParams ParseTextSearch(std::string_view body);
HybridParams ParseHybridSearch(std::string_view body, uint32_t dim, Metric metric);
SuggestParams ParseSuggest(std::string_view body);

}  // namespace tessera
