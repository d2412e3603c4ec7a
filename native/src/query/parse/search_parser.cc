#include "query/parse/search_parser.h"

#include "query/parse/body_reader.h"
#include "query/parse/ranked_fields.h"
#include "util/json_reader.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

SearchParams ReadSearchObject(element e, const std::string& prefix, SearchKind kind, uint32_t dim, Metric metric,
                              const std::vector<float>* query = nullptr) {
  SearchParams p;
  bool has_query = false;
  for (auto [key, value] : ExpectObject(e, prefix.empty() ? "request body" : prefix.substr(0, prefix.size() - 1))) {
    if (query && key == "query") Bad("query is passed as a vector beside the body; leave it out of the body");
    ReadSearchField(key, value, p, kind, prefix, dim, metric, &has_query);
  }
  if (query) {
    p.query = CheckedVector(*query, "query", dim, metric);
    has_query = true;
  }
  if (!has_query) {
    if (dim == 0) Bad(prefix + "query: this store has dimension 0 (keyword-only); vector search is not possible");
    Bad(prefix + "query is required: an array of " + std::to_string(dim) + " numbers");
  }
  CheckSearch(p, prefix);
  return p;
}

}  // namespace

SearchParams ParseSearch(std::string_view body, uint32_t dim, Metric metric, const std::vector<float>* query) {
  RequestBody parsed(body);
  return ReadSearchObject(parsed.root(), "", SearchKind::kSearch, dim, metric, query);
}

SimilarParams ParseSimilar(std::string_view body) {
  RequestBody parsed(body);
  SimilarParams sp;
  bool unused = false;
  for (auto [key, value] : parsed.Object()) {
    if (key == "collection")
      sp.collection = JsonString(value, "collection");
    else if (key == "id")
      sp.id = JsonString(value, "id");
    else
      ReadSearchField(key, value, sp.search, SearchKind::kSimilar, "", 0, Metric::kCosine, &unused);
  }
  if (sp.collection.empty()) Bad("collection is required: the collection of the source record");
  if (sp.id.empty()) Bad("id is required: the id of the source record");
  CheckSearch(sp.search, "");
  return sp;
}

BatchParams ParseBatch(std::string_view body, uint32_t dim, Metric metric) {
  RequestBody parsed(body);
  BatchParams b;
  bool has_queries = false;
  for (auto [key, value] : parsed.Object()) {
    if (key == "queries") {
      auto legs = ExpectArray(value, "queries");
      if (legs.size() < 1 || legs.size() > 16) Bad("queries must hold 1 to 16 search bodies, got " + std::to_string(legs.size()));
      size_t i = 0;
      for (element leg : legs)
        b.queries.push_back(ReadSearchObject(leg, "queries[" + std::to_string(i++) + "].", SearchKind::kBatchLeg, dim, metric));
      has_queries = true;
    } else if (key == "fuse") {
      if (value.type() == element_type::NULL_VALUE) continue;
      FuseParams fuse;
      for (auto [k, v] : ExpectObject(value, "fuse")) {
        std::string f = "fuse." + std::string(k);
        if (k == "rrf_k") {
          fuse.rrf_k = ExpectFinite(v, f);
          if (fuse.rrf_k < 0) Bad(f + " must not be negative");
        } else if (k == "weights") {
          size_t i = 0;
          for (element w : ExpectArray(v, f)) {
            double weight = ExpectFinite(w, f + "[" + std::to_string(i++) + "]");
            if (weight < 0) Bad(f + " must not hold negative weights");
            fuse.weights.push_back(weight);
          }
        } else if (k == "top_k") {
          fuse.top_k = ExpectCount(v, f, kMaxRankDepth);
        } else {
          UnknownField(k, " in fuse", "rrf_k, weights, top_k");
        }
      }
      b.fuse = fuse;
    } else {
      UnknownField(key, " in the batch body", "queries, fuse");
    }
  }
  if (!has_queries) Bad("queries is required: 1 to 16 search bodies");
  if (b.fuse && !b.fuse->weights.empty() && b.fuse->weights.size() != b.queries.size())
    Bad("fuse.weights must be empty or hold exactly one weight per query (" + std::to_string(b.queries.size()) + "), got " +
        std::to_string(b.fuse->weights.size()));
  return b;
}

}  // namespace tessera
