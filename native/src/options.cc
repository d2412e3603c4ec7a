#include "tessera/options.h"

#include "tessera/error.h"

namespace tessera {

const char* MetricName(Metric m) {
  switch (m) {
    case Metric::kCosine: return "Cosine";
    case Metric::kEuclidean: return "Euclidean";
    case Metric::kDotProduct: return "DotProduct";
  }
  return "?";
}

Metric ParseMetric(std::string_view name) {
  if (name == "Cosine") return Metric::kCosine;
  if (name == "Euclidean") return Metric::kEuclidean;
  if (name == "DotProduct") return Metric::kDotProduct;
  throw BadRequest("distance must be Cosine, Euclidean or DotProduct, got '" + std::string(name) + "'");
}

const char* RoleName(Role role) {
  switch (role) {
    case Role::kWriter: return "Writer";
    case Role::kReader: return "Reader";
    case Role::kInMemory: return "InMemory";
  }
  return "?";
}

}  // namespace tessera
