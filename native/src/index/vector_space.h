// The points a graph links, seen only through distances: from a query (or a row being inserted)
// to a row. Smaller is closer. The graph never reads vectors itself, so the same walk serves f32
// rows and quantized codes.
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
  virtual float Distance(const void* query, uint32_t row) const = 0;
  // out[i] = Distance(query, rows[i]): a walk scores a node's unvisited links together, so an
  // implementation can prefetch them all before the first distance.
  virtual void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const {
    for (size_t i = 0; i < n; ++i) out[i] = Distance(query, rows[i]);
  }
  // Row r in the form Distance() takes as a query (inserting r walks the graph from it).
  virtual const void* Row(uint32_t row) const = 0;
  virtual bool Present(uint32_t row) const = 0;  // rows without a vector are not in the graph
  virtual uint32_t rows() const = 0;
  // Identifies the distance in an index file, so a file built under another space is not reused.
  virtual uint32_t kind() const = 0;
};

}  // namespace tessera
