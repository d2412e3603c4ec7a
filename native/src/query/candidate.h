// A ranked candidate and the order every ranked route shares: score descending, then collection
// (by name), then id. CandidateHeap keeps the best window of them.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "storage/segment.h"

namespace tessera {

struct Candidate {
  float score;
  uint32_t collection;  // index into a scope sorted by collection name
  const Segment* segment;
  uint32_t row;
  // Read from the segment when needed, not when offered: a window compares ids only between tied
  // scores, so most rows a scan offers and then drops never touch their record (a cache miss each).
  std::string_view id() const { return segment->row_id(row); }
};

// True when a ranks before b.
inline bool RanksBefore(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.collection != b.collection) return a.collection < b.collection;
  return a.id() < b.id();
}

// Keeps the best `capacity` candidates offered, in O(log capacity) per accepted offer.
class CandidateHeap {
 public:
  explicit CandidateHeap(size_t capacity) : capacity_(capacity) { heap_.reserve(capacity); }
  void Offer(const Candidate& c);
  // The lowest score a new candidate needs: the worst kept once the heap is full, else -inf
  // (+inf for a heap that keeps nothing).
  float floor() const {
    if (capacity_ == 0) return INFINITY;
    return heap_.size() == capacity_ ? heap_.front().score : -INFINITY;
  }
  std::vector<Candidate> Take() { return std::move(heap_); }

 private:
  size_t capacity_;
  std::vector<Candidate> heap_;  // max-heap on "ranks later", so the worst kept is at the front
};

}  // namespace tessera
