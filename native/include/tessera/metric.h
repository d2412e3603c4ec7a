// The distance metric pinned in a store's header.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

enum class Metric { kCosine, kEuclidean, kDotProduct };

inline const char* MetricName(Metric m) {
  switch (m) {
    case Metric::kCosine: return "Cosine";
    case Metric::kEuclidean: return "Euclidean";
    case Metric::kDotProduct: return "DotProduct";
  }
  return "?";
}

inline std::optional<Metric> ParseMetric(std::string_view s) {
  if (s == "Cosine") return Metric::kCosine;
  if (s == "Euclidean") return Metric::kEuclidean;
  if (s == "DotProduct") return Metric::kDotProduct;
  return std::nullopt;
}

}  // namespace tessera
