// A segment's f32 rows as a graph sees them, under the store's metric: squared L2 for Euclidean,
// the negated dot product otherwise (Cosine rows are stored normalized), so smaller is closer and
// a row's score is the negated distance.
#pragma once
#include "index/vector_space.h"
#include "storage/segment.h"
#include "tessera/kernels.h"
#include "tessera/options.h"
#include "util/prefetch.h"

namespace tessera {

class F32Space final : public VectorSpace {
 public:
  F32Space(const Segment& segment, Metric metric)
      : segment_(segment), euclidean_(metric == Metric::kEuclidean), kernels_(ActiveKernels()) {}

  void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const override {
    const float* q = static_cast<const float*>(query);
    uint32_t dim = segment_.dim();
    auto row_at = [&](size_t i) { return segment_.vector(rows[i]); };
    VisitRowsPrefetched(n, sizeof(float) * dim, row_at,
                        [&](size_t i) { out[i] = euclidean_ ? kernels_.l2sq(q, row_at(i), dim) : -kernels_.dot(q, row_at(i), dim); });
  }
  void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const override {
    Distances(segment_.vector(from), rows, n, out);
  }
  bool Present(uint32_t row) const override { return segment_.has_vector(row); }
  uint32_t rows() const override { return segment_.appended(); }
  uint32_t kind() const override { return euclidean_ ? 1 : 2; }

 private:
  const Segment& segment_;
  bool euclidean_;
  const Kernels& kernels_;
};

}  // namespace tessera
