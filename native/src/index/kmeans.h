// k-means over f32 points, the coarse quantizer of the IVF lists: k-means++ seeding and a few
// Lloyd iterations on a sample of at most sample_per_centroid points per centroid, so training
// costs O(iterations x k^2 x sample_per_centroid x dim) whatever the number of points; then one
// pass assigns every point. Distances are squared L2, the partition queries probe; spherical mode
// keeps the centroids unit length (spherical k-means, for Cosine rows that are stored normalized).
// Every step is deterministic for a seed, whatever the number of threads.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/cancel.h"
#include "util/thread_pool.h"

namespace tessera {

struct KMeansParams {
  uint32_t k = 1;
  uint64_t seed = 0;
  bool spherical = false;
  uint32_t iterations = 10;
  uint32_t sample_per_centroid = 64;
};

// Some rows of a row-major f32 matrix: point i is vectors + rows[i] x dim.
struct PointSet {
  const float* vectors;
  uint32_t dim;
  const std::vector<uint32_t>& rows;

  const float* point(size_t i) const { return vectors + size_t(rows[i]) * dim; }
  size_t size() const { return rows.size(); }
};

// params.k centroids (k x dim, row-major) of points, 1 <= k <= points.size(), on pool's threads
// and the caller's. Throws Error(kCancelled) once stop is cancelled.
std::vector<float> TrainKMeans(const PointSet& points, const KMeansParams& params, ThreadPool& pool, const CancelToken& stop);

// For each point, the index of the centroid nearest it (squared L2), and that distance when
// distances is not null.
std::vector<uint32_t> AssignNearest(const PointSet& points, const float* centroids, uint32_t k, ThreadPool& pool, const CancelToken& stop,
                                    std::vector<float>* distances = nullptr);

}  // namespace tessera
