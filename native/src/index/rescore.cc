#include "index/rescore.h"

#include <algorithm>

#include "util/clock.h"
#include "util/prefetch.h"

namespace tessera {

void RescoreBest(const Segment& segment, const VectorQuery& query, std::vector<Neighbor>& candidates, size_t keep, ScoreSink& sink,
                 SearchTrace& trace) {
  uint64_t start = NowNanos();
  auto closer = [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance; };
  if (candidates.size() > keep) {
    std::nth_element(candidates.begin(), candidates.begin() + keep, candidates.end(), closer);
    candidates.resize(keep);
  }
  const Kernels& k = ActiveKernels();
  auto row_at = [&](size_t i) { return segment.vector(candidates[i].row); };
  VisitRowsPrefetched(candidates.size(), sizeof(float) * segment.dim(), row_at,
                      [&](size_t i) { OfferScore(query, candidates[i].row, ExactScore(k, query, row_at(i)), sink, trace); });
  trace.rescore_ns += NowNanos() - start;
}

}  // namespace tessera
