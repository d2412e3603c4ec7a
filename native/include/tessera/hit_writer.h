// Ranked candidates and their serialization as the spec's Hit array. Every ranked route shares
// the (score desc, collection, id) order and the projection rules defined here.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/projection.h"
#include "tessera/segment.h"

namespace tessera {

struct Candidate {
  float score;
  uint32_t collection;  // index into a scope sorted by collection name
  std::string_view id;
  const Segment* segment;
  uint32_t row;
};

// True when a ranks before b.
inline bool RanksBefore(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.collection != b.collection) return a.collection < b.collection;
  return a.id < b.id;
}

// Keeps the best `capacity` candidates offered, in O(log capacity) per accepted offer.
class CandidateHeap {
 public:
  explicit CandidateHeap(size_t capacity) : capacity_(capacity) { heap_.reserve(capacity); }
  // False when a candidate scoring `score` (or any lower score) cannot enter: the scan loop
  // checks this inline before building the candidate or reading its attributes.
  bool MayAccept(float score) const {
    return heap_.size() < capacity_ || (capacity_ > 0 && score >= heap_.front().score);
  }
  void Offer(const Candidate& c);
  // The lowest score kept once the heap is full (every later candidate must beat it), else -inf.
  float floor() const { return capacity_ > 0 && heap_.size() == capacity_ ? heap_.front().score : -INFINITY; }
  std::vector<Candidate> Take() { return std::move(heap_); }

 private:
  size_t capacity_;
  std::vector<Candidate> heap_;  // max-heap on "ranks later", so the worst kept is at the front
};

class JsonWriter;

// Writes one hit's annotations object (explain, highlight).
using Annotator = std::function<void(JsonWriter& w, const Candidate& c)>;

// Writes candidates [offset, offset + limit), already in order, as a JSON hit array; with an
// annotator each hit carries "annotations".
std::string WriteHits(const std::vector<Candidate>& candidates, size_t offset, size_t limit,
                      const std::vector<std::string_view>& collection_names, const Projection& projection,
                      const Annotator& annotate = nullptr);

// Writes an attribute blob as a JSON object, keeping only projected keys.
void WriteAttrs(class JsonWriter& w, std::string_view blob, const Projection* projection);

}  // namespace tessera
