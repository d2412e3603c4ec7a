#include "index/rescore.h"

#include <algorithm>
#include <vector>

#include "util/clock.h"
#include "util/prefetch.h"

namespace tessera {

namespace {

// How many times the largest overestimate seen so far a candidate's estimate must exceed the
// window's floor by to be left unread. Measured on Fashion-MNIST (784-d, Euclidean grid codes):
// from 1.5 up, recall@10 at every ef from 16 to 96 equals rescoring every candidate, with about
// 11 rows read instead of 32 to 40.
constexpr float kPruneSlack = 3;

}  // namespace

void RescoreBest(const Segment& segment, const VectorQuery& query, std::vector<Neighbor>& candidates, size_t keep, ScoreSink& sink,
                 SearchTrace& trace, bool prune) {
  uint64_t start = NowNanos();
  auto closer = [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance; };
  if (candidates.size() > keep) {
    std::nth_element(candidates.begin(), candidates.begin() + keep, candidates.end(), closer);
    candidates.resize(keep);
  }
  // Best estimates first: they fill the window, whose floor then rules out the rest soonest.
  std::sort(candidates.begin(), candidates.end(), closer);
  const Kernels& k = ActiveKernels();
  auto row_at = [&](size_t i) { return segment.vector(candidates[i].row); };
  // A score is the negated distance: an estimate over the exact distance by e scores e too low.
  float overestimate = 0;
  size_t rescored = 0;
  auto wanted = [&](size_t i) {
    return !prune || rescored < query.window || sink.Wants(-(candidates[i].distance - kPruneSlack * overestimate));
  };
  auto rescore = [&](size_t i, const float* row) {
    float score = ExactScore(k, query, row);
    overestimate = std::max(overestimate, candidates[i].distance + score);
    ++rescored;
    OfferScore(query, candidates[i].row, score, sink, trace);
  };
  if (segment.reads_rows_from_file()) {
    // Rows read into a buffer keep the f32 file out of the resident set; a read costs about a
    // microsecond from the page cache (bench/README.md, "Scale").
    thread_local std::vector<float> row;
    row.resize(segment.dim());
    for (size_t i = 0; i < candidates.size(); ++i)
      if (wanted(i)) rescore(i, segment.ReadVector(candidates[i].row, row.data()));
  } else {
    VisitRowsPrefetched(
        candidates.size(), sizeof(float) * segment.dim(), row_at, [&](size_t i) { rescore(i, row_at(i)); }, wanted);
  }
  trace.rescored += rescored;
  trace.rescore_ns += NowNanos() - start;
}

}  // namespace tessera
