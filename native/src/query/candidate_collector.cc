#include "query/candidate_collector.h"

#include "query/ranking.h"

namespace tessera {

CandidateCollector::CandidateCollector(size_t window, uint32_t scope_index, const Segment& segment, const SearchParams& params,
                                       std::atomic<float>* shared_floor)
    : ScoreSink(shared_floor),
      heap_(window),
      scope_index_(scope_index),
      segment_(segment),
      rank_by_(params.rank_by),
      min_score_(MinScoreFloor(params)) {
  if (window == 0) RaiseFloor(heap_.floor());
}

void CandidateCollector::Offer(uint32_t row, float score) {
  if (rank_by_) score = float(score - DecayPenalty(*rank_by_, segment_.row_attrs(row)));
  if (score < min_score_) return;
  heap_.Offer(Candidate{score, scope_index_, &segment_, row});
  RaiseFloor(heap_.floor());
}

}  // namespace tessera
