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
    // Every row's first line now; each row whole one row ahead (a batch of whole rows would not fit in L1).
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(segment_.vector(rows[i]));
    for (size_t i = 0; i < n; ++i) {
      if (i + 1 < n) PrefetchBytes(segment_.vector(rows[i + 1]), sizeof(float) * segment_.dim());
      const float* v = segment_.vector(rows[i]);
      out[i] = euclidean_ ? kernels_.l2sq(q, v, segment_.dim()) : -kernels_.dot(q, v, segment_.dim());
    }
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
