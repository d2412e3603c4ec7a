// Bodies of the metadata-only reads: POST /list and /aggregate (an empty body takes every default).
#pragma once
#include <string_view>

#include "query/metadata_params.h"

namespace tessera {

ListParams ParseList(std::string_view body);
AggregateParams ParseAggregate(std::string_view body);

}  // namespace tessera
