#include "index/rescore.h"

#include <algorithm>

#include "util/clock.h"

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
  for (const Neighbor& c : candidates) OfferScore(query, c.row, ExactScore(k, query, segment.vector(c.row)), sink, trace);
  trace.rescore_ns += NowNanos() - start;
}

}  // namespace tessera
