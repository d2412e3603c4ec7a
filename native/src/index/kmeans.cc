#include "index/kmeans.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "tessera/kernels.h"

namespace tessera {
namespace {

// Points one pool task handles: a few milliseconds of distances between two polls of stop.
constexpr size_t kChunk = 256;

// Runs fn(begin, end) over [0, n) in chunks on pool's threads.
template <typename Fn>
void ForEachChunk(size_t n, ThreadPool& pool, const CancelToken& stop, Fn&& fn) {
  pool.ParallelFor((n + kChunk - 1) / kChunk, [&](size_t c) {
    stop.ThrowIfCancelled();
    fn(c * kChunk, std::min(n, (c + 1) * kChunk));
  });
}

double Uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

// count of rows drawn uniformly without replacement (a partial Fisher-Yates), ascending so the
// sample is read in the order the rows lie in memory.
std::vector<uint32_t> SampleRows(const std::vector<uint32_t>& rows, size_t count, std::mt19937_64& rng) {
  std::vector<uint32_t> picked(rows);
  if (count >= picked.size()) return picked;
  for (size_t i = 0; i < count; ++i) std::swap(picked[i], picked[i + rng() % (picked.size() - i)]);
  picked.resize(count);
  std::sort(picked.begin(), picked.end());
  return picked;
}

void Normalize(float* v, size_t dim) {
  double norm = 0;
  for (size_t d = 0; d < dim; ++d) norm += double(v[d]) * v[d];
  if (norm == 0) return;
  float scale = float(1 / std::sqrt(norm));
  for (size_t d = 0; d < dim; ++d) v[d] *= scale;
}

// k-means++ (Arthur & Vassilvitskii): each next centroid is a point drawn with probability
// proportional to its squared distance from the nearest centroid so far, which spreads the seeds
// over the clusters instead of leaving dense ones to share a seed.
std::vector<float> SeedCentroids(const PointSet& points, uint32_t k, std::mt19937_64& rng, ThreadPool& pool, const CancelToken& stop) {
  const Kernels& kernels = ActiveKernels();
  size_t n = points.size(), dim = points.dim;
  std::vector<float> centroids(size_t(k) * dim);
  std::vector<float> nearest(n, INFINITY);
  size_t chosen = rng() % n;
  for (uint32_t c = 0;; ++c) {
    float* centroid = &centroids[size_t(c) * dim];
    std::copy_n(points.point(chosen), dim, centroid);
    if (c + 1 == k) return centroids;
    ForEachChunk(n, pool, stop, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) nearest[i] = std::min(nearest[i], kernels.l2sq(points.point(i), centroid, dim));
    });
    double total = std::accumulate(nearest.begin(), nearest.end(), 0.0);
    if (total == 0) {  // every point sits on a centroid already
      chosen = rng() % n;
      continue;
    }
    double target = Uniform01(rng) * total;
    for (chosen = 0; chosen + 1 < n && (target -= nearest[chosen]) >= 0;) ++chosen;
  }
}

// Moves each centroid to the mean of its points (unit length when spherical). A centroid left
// without points takes the point farthest from its own centroid, splitting the worst-fitting
// cluster rather than wasting a list.
void UpdateCentroids(const PointSet& points, const std::vector<uint32_t>& assigned, const std::vector<float>& distances,
                     const KMeansParams& params, std::vector<float>& centroids) {
  size_t dim = points.dim;
  std::vector<double> sums(centroids.size(), 0.0);
  std::vector<uint32_t> counts(params.k, 0);
  for (size_t i = 0; i < points.size(); ++i) {
    const float* p = points.point(i);
    double* sum = &sums[size_t(assigned[i]) * dim];
    for (size_t d = 0; d < dim; ++d) sum[d] += p[d];
    ++counts[assigned[i]];
  }
  std::vector<size_t> farthest;
  size_t empties = size_t(std::count(counts.begin(), counts.end(), 0u));
  if (empties > 0) {
    farthest.resize(points.size());
    std::iota(farthest.begin(), farthest.end(), size_t(0));
    auto by_distance = [&](size_t a, size_t b) { return distances[a] > distances[b] || (distances[a] == distances[b] && a < b); };
    std::partial_sort(farthest.begin(), farthest.begin() + empties, farthest.end(), by_distance);  // empties <= k <= points
  }
  size_t next_far = 0;
  for (uint32_t c = 0; c < params.k; ++c) {
    float* centroid = &centroids[size_t(c) * dim];
    if (counts[c] == 0) {
      std::copy_n(points.point(farthest[next_far++]), dim, centroid);
      continue;
    }
    for (size_t d = 0; d < dim; ++d) centroid[d] = float(sums[size_t(c) * dim + d] / counts[c]);
    if (params.spherical) Normalize(centroid, dim);
  }
}

}  // namespace

std::vector<float> TrainKMeans(const PointSet& points, const KMeansParams& params, ThreadPool& pool, const CancelToken& stop) {
  std::mt19937_64 rng(params.seed);
  std::vector<uint32_t> sample_rows = SampleRows(points.rows, size_t(params.k) * params.sample_per_centroid, rng);
  PointSet sample{points.vectors, points.dim, sample_rows};
  std::vector<float> centroids = SeedCentroids(sample, params.k, rng, pool, stop);
  std::vector<uint32_t> assigned;
  for (uint32_t it = 0; it < params.iterations; ++it) {
    std::vector<float> distances;
    std::vector<uint32_t> next = AssignNearest(sample, centroids.data(), params.k, pool, stop, &distances);
    if (next == assigned) break;  // converged: the centroids would not move
    assigned = std::move(next);
    UpdateCentroids(sample, assigned, distances, params, centroids);
  }
  return centroids;
}

std::vector<uint32_t> AssignNearest(const PointSet& points, const float* centroids, uint32_t k, ThreadPool& pool, const CancelToken& stop,
                                    std::vector<float>* distances) {
  const Kernels& kernels = ActiveKernels();
  std::vector<uint32_t> out(points.size());
  if (distances != nullptr) distances->resize(points.size());
  ForEachChunk(points.size(), pool, stop, [&](size_t begin, size_t end) {
    std::vector<float> scratch(k);
    for (size_t i = begin; i < end; ++i) {
      kernels.l2sq_rows(points.point(i), centroids, points.dim, k, scratch.data());
      size_t best = size_t(std::min_element(scratch.begin(), scratch.end()) - scratch.begin());
      out[i] = uint32_t(best);
      if (distances != nullptr) (*distances)[i] = scratch[best];
    }
  });
  return out;
}

}  // namespace tessera
