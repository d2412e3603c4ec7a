#include "tessera/options.h"

#include "tessera/error.h"

namespace tessera {
namespace {

constexpr std::pair<Metric, const char*> kMetricNames[] = {
    {Metric::kCosine, "Cosine"}, {Metric::kEuclidean, "Euclidean"}, {Metric::kDotProduct, "DotProduct"}};
constexpr const char* kRoleNames[] = {"Writer", "Reader", "InMemory"};  // in Role's order

}  // namespace

const char* MetricName(Metric m) {
  for (const auto& [metric, name] : kMetricNames)
    if (metric == m) return name;
  return "?";
}

Metric ParseMetric(std::string_view name) {
  for (const auto& [metric, spelled] : kMetricNames)
    if (name == spelled) return metric;
  throw BadRequest("distance must be Cosine, Euclidean or DotProduct, got '" + std::string(name) + "'");
}

const char* RoleName(Role role) { return kRoleNames[size_t(role)]; }

}  // namespace tessera
