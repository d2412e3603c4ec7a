// The points a graph links, seen only through distances: from a query, or from one of its rows
// (inserting a row walks the graph from it). Smaller is closer. The graph never reads vectors
// itself, so the same walk serves f32 rows and quantized codes.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {

// A row and its distance from a query, as the approximate indexes return them.
struct Neighbor {
  float distance;
  uint32_t row;
};

class VectorSpace {
 public:
  virtual ~VectorSpace() = default;
  // out[i] = distance from query (in the form this space's owner prepared it) to rows[i]. A walk
  // scores a node's unvisited links together, so an implementation can prefetch them first.
  virtual void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const = 0;
  virtual void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const = 0;
  virtual bool Present(uint32_t row) const = 0;  // rows without a vector are not in the graph
  virtual uint32_t rows() const = 0;
  // Identifies the distance in an index file, so a file built under another space is not reused.
  virtual uint32_t kind() const = 0;

  float Distance(const void* query, uint32_t row) const {
    float d;
    Distances(query, &row, 1, &d);
    return d;
  }
  float DistanceFromRow(uint32_t from, uint32_t row) const {
    float d;
    DistancesFromRow(from, &row, 1, &d);
    return d;
  }
};

}  // namespace tessera
