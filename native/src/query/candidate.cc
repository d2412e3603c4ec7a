#include "query/candidate.h"

#include <algorithm>

namespace tessera {

void CandidateHeap::Offer(const Candidate& c) {
  auto later = [](const Candidate& a, const Candidate& b) { return RanksBefore(a, b); };
  if (capacity_ == 0) return;
  if (heap_.size() < capacity_) {
    heap_.push_back(c);
    std::push_heap(heap_.begin(), heap_.end(), later);
  } else if (RanksBefore(c, heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.back() = c;
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
}

}  // namespace tessera
