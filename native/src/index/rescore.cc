#include "index/rescore.h"

#include <algorithm>

#include "util/clock.h"
#include "util/prefetch.h"

namespace tessera {

namespace {

// Rows asked for whole ahead of the one scored (every row's first line is asked for at once):
// enough for their misses to overlap, few enough that rows of a few KiB stay in L1 until read.
constexpr size_t kAhead = 2;

}  // namespace

void RescoreBest(const Segment& segment, const VectorQuery& query, std::vector<Neighbor>& candidates, size_t keep, ScoreSink& sink,
                 SearchTrace& trace) {
  uint64_t start = NowNanos();
  auto closer = [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance; };
  if (candidates.size() > keep) {
    std::nth_element(candidates.begin(), candidates.begin() + keep, candidates.end(), closer);
    candidates.resize(keep);
  }
  const Kernels& k = ActiveKernels();
  size_t row_bytes = sizeof(float) * segment.dim();
  for (const Neighbor& c : candidates) __builtin_prefetch(segment.vector(c.row));
  for (size_t i = 0; i < std::min(kAhead, candidates.size()); ++i) PrefetchBytes(segment.vector(candidates[i].row), row_bytes);
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (i + kAhead < candidates.size()) PrefetchBytes(segment.vector(candidates[i + kAhead].row), row_bytes);
    OfferScore(query, candidates[i].row, ExactScore(k, query, segment.vector(candidates[i].row)), sink, trace);
  }
  trace.rescore_ns += NowNanos() - start;
}

}  // namespace tessera
