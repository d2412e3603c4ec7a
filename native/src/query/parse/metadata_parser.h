// Bodies of the metadata-only reads: POST /list and /aggregate (an empty body takes every default),
// and the ids of Store::Get.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "query/metadata_params.h"

namespace tessera {

ListParams ParseList(std::string_view body);
AggregateParams ParseAggregate(std::string_view body);
// {"ids": [...]}: the records Store::Get reads.
std::vector<std::string> ParseGet(std::string_view body);

}  // namespace tessera
