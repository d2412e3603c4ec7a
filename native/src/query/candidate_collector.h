// Collects one segment's scored rows into the query's window: the rank_by penalty, min_score and
// a bounded heap, with a floor shared by every segment task of the query. Both the vector and the
// text search rank through it.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "index/vector_index.h"
#include "query/candidate.h"
#include "query/search_params.h"

namespace tessera {

class CandidateCollector final : public ScoreSink {
 public:
  // shared_floor: the highest floor any task's full heap has reached (-inf to start).
  CandidateCollector(size_t window, uint32_t scope_index, const Segment& segment, const SearchParams& params,
                     std::atomic<float>* shared_floor);

  // rank_by only subtracts, so a base score the floor rejects never enters: callers check
  // Wants() before the filter, which changes no result, only the work.
  void Offer(uint32_t row, float score) override;
  std::vector<Candidate> Take() { return heap_.Take(); }

 private:
  CandidateHeap heap_;
  uint32_t scope_index_;
  const Segment& segment_;
  const std::optional<DecayRank>& rank_by_;
  float min_score_;  // scores are floats: a floor written from a returned score keeps that row
};

}  // namespace tessera
