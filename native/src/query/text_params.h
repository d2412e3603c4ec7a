// What a full-text route asks for, as parsed from /text-search, /hybrid-search and /suggest
// bodies: plain values, no JSON.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "filter/filter.h"
#include "query/search_params.h"

namespace tessera {

// One field searched with one query (spec: text-search clauses).
struct TextClause {
  std::string field;
  std::string query;
  bool prefix = false;  // expand the final word as a prefix
};

enum class Combine { kSum, kMax };

struct HighlightParams {
  uint32_t max_fragments = 1;
  uint32_t fragment_chars = 160;
};

struct TextQuery {
  std::vector<TextClause> clauses;
  Combine combine = Combine::kSum;
  bool explain = false;
  std::optional<HighlightParams> highlight;
};

// /text-search: the shared ranking options live in search (its query vector stays empty).
struct TextSearchParams {
  TextQuery text;
  SearchParams search;
};

// /hybrid-search: search.query is the vector leg; both legs run `candidates` deep.
struct HybridParams {
  TextQuery text;
  SearchParams search;
  double rrf_k = 60.0;
  uint32_t candidates = 100;
  double vector_weight = 1.0;
  double text_weight = 1.0;
};

struct SuggestParams {
  std::string field;
  std::string prefix;
  std::vector<std::string> scope;
  Filter filter;
  uint32_t limit = 10;
  bool fuzzy = true;
};

}  // namespace tessera
