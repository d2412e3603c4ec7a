// Parses request bodies that carry vectors, Values or filters (simdjson, in the core, so Int stays
// exact and no JS array of numbers is ever built). Every error is Error(400) naming the field and
// the fix, raised before any row is read.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/filter.h"
#include "tessera/metric.h"
#include "tessera/ops.h"
#include "tessera/projection.h"

namespace tessera {

enum class Pool { kMax, kSum };

constexpr uint32_t kMaxRankDepth = 10000;

struct LimitPer {
  std::string field;
  uint32_t max = 1;
};

// Score = base - lambda x (1 - decay^(age / scale)) - count_lambda x (1 - n / (n + count_scale)).
struct DecayRank {
  std::string field;
  int64_t origin = 0;
  double scale = 604800000.0;
  double decay = 0.5;
  double lambda = 1.0;
  double missing = 1.0;
  std::string count_field;
  double count_scale = 10.0;
  double count_lambda = 1.0;
};

struct SearchParams {
  std::vector<float> query;  // normalized for Cosine
  std::vector<std::string> scope;
  uint32_t top_k = 10;
  uint32_t offset = 0;
  std::optional<double> min_score;
  bool exact = false;
  Projection projection;
  std::vector<std::string> names;
  std::map<std::string, float> name_weights;
  Pool pool = Pool::kMax;
  Filter filter;
  std::optional<LimitPer> limit_per;
  std::optional<double> diversity;
  std::optional<DecayRank> rank_by;
};

// /search/similar: the source record replaces the query vector.
struct SimilarParams {
  SearchParams search;
  std::string collection;
  std::string id;
};

struct FuseParams {
  double rrf_k = 60.0;
  std::vector<double> weights;  // empty = all 1.0
  uint32_t top_k = 10;
};

struct BatchParams {
  std::vector<SearchParams> queries;
  std::optional<FuseParams> fuse;
};

struct OrderBy {
  std::string field;
  bool descending = false;
};

struct ListParams {
  std::vector<std::string> scope;
  Filter filter;
  uint32_t offset = 0;
  uint32_t limit = 100;
  Projection projection;
  std::optional<OrderBy> order_by;
};

struct AggregateParams {
  std::vector<std::string> scope;
  Filter filter;
  std::vector<std::string> sum;
  std::optional<std::string> group_by;
};

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

SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric);
TextSearchParams ParseTextSearch(std::string_view body);
HybridParams ParseHybridSearch(std::string_view body, uint32_t dim, Metric metric);
SuggestParams ParseSuggest(std::string_view body);
std::vector<FtsField> ParseFtsSchema(std::string_view body);
SimilarParams ParseSimilar(std::string_view body);
BatchParams ParseBatch(std::string_view body, uint32_t dim, Metric metric);
ListParams ParseList(std::string_view body);
AggregateParams ParseAggregate(std::string_view body);
UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric);

// A delete names ids, or a filter (which wins when both are sent).
struct DeleteRequest {
  std::vector<std::string> ids;
  std::optional<Filter> filter;
};
DeleteRequest ParseDelete(std::string_view body);

std::map<std::string, std::string> ParseMeta(std::string_view body);
std::vector<std::string> ParseVectorNames(std::string_view body);
std::vector<FilterIndexField> ParseFilterIndex(std::string_view body);
std::string ParseAliasTarget(std::string_view body);

}  // namespace tessera
