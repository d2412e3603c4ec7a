// What a vector search asks for, as parsed from /search, /search/similar and /search/batch bodies:
// plain values, no JSON. The ranking options (paging, filter, projection, limit_per, diversity,
// rank_by) and the expand payload are shared by every ranked route.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "filter/filter.h"
#include "query/projection.h"

namespace tessera {

// offset + top_k, list limits and rank depths are bounded by this.
constexpr uint32_t kMaxRankDepth = 10000;

enum class Pool { kMax, kSum };

struct LimitPer {
  std::string field;
  uint32_t max = 1;
  // Records missing the field share one group (the spec's rule), or each is a group of its own
  // (recall's rollup: a memory that was never chunked is a document by itself).
  bool missing_own_group = false;
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

// expand (spec: "expand and rollup"): each hit's chunk widened by radius chunks on either side,
// the chunks found by these attributes of the stored records (query/expand.h).
struct ExpandParams {
  uint32_t radius = 0;
  std::string parent_field = "svc.parent_id";
  std::string index_field = "svc.chunk_index";
  std::string text_field = "svc.text";
};

// 201 chunks (about 200,000 characters at the default chunk size) are more context than a reader
// of one hit can use; the bound keeps a page's reads at most 201 chunks per hit.
constexpr uint32_t kMaxExpandRadius = 100;

// rerank (feature rerank): a model the library calls re-scores the (offset + top_k) x overscan
// candidates the route ranks, reading each one's text_attr (query/rerank.h).
struct RerankParams {
  std::string query;  // empty: the route's own text (a single-field /text-search's query)
  uint32_t overscan = 10;
  std::string text_attr = "svc.text";
};

struct SearchParams {
  std::vector<float> query;  // normalized for Cosine
  std::vector<std::string> scope;
  uint32_t top_k = 10;
  uint32_t offset = 0;
  std::optional<double> min_score;
  bool exact = false;
  bool plan = false;  // answer {hits, plan}
  Projection projection;
  std::vector<std::string> names;
  std::map<std::string, float> name_weights;
  Pool pool = Pool::kMax;
  Filter filter;
  std::optional<LimitPer> limit_per;
  std::optional<double> diversity;
  std::optional<DecayRank> rank_by;
  std::optional<ExpandParams> expand;  // payload only: never changes the ranking
  std::optional<RerankParams> rerank;  // answered in two phases (query/rerank.h), never by the plain read
};

// min_score at the precision scores have (a float), so a floor copied from a returned score keeps
// that row; beyond the float range it passes nothing (or everything).
inline float MinScoreFloor(const SearchParams& p) {
  double floor = p.min_score.value_or(-INFINITY);
  if (floor > FLT_MAX) return INFINITY;
  if (floor < -FLT_MAX) return -INFINITY;
  return float(floor);
}

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

}  // namespace tessera
