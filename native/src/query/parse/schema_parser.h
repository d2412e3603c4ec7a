// Bodies of the catalog writes: collection metadata, vector names, the filter-index declaration,
// the full-text schema and alias targets.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/fts_field.h"
#include "index/filter_index_field.h"

namespace tessera {

std::map<std::string, std::string> ParseMeta(std::string_view body);
std::vector<std::string> ParseVectorNames(std::string_view body);
std::vector<FilterIndexField> ParseFilterIndex(std::string_view body);
std::vector<FtsField> ParseFtsSchema(std::string_view body);
std::string ParseAliasTarget(std::string_view body);

}  // namespace tessera
