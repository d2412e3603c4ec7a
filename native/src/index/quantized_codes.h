// Compact codes of a sealed segment's vectors, for a first pass that ranks rows by an estimated
// score; the best candidates are then rescored exactly from the f32 rows.
//
// Int8, Cosine and DotProduct: each vector scaled by its own max |x| to codes in [-127, 127], with
//   the scale and the exact squared norm: <q, x> ~ s_q s_x sum(c_q c_x).
// Int8, Euclidean: every vector, and the query, on one grid per segment, low + step c with c in
//   [0, 127] spanning the segment's values, so |q - x|^2 ~ step^2 |c_q - c_x|^2, computed exactly
//   in integers as step^2 (|c_q|^2 + |c_x|^2 - 2 <c_q, c_x>) (the row keeps step and step^2 |c_x|^2
//   where the per-row form keeps its scale and norm). Per-row scales estimated the distance as
//   |q|^2 + |x|^2 - 2 <q, x>, whose error does not cancel for near rows: on Fashion-MNIST the best
//   10 by estimate held 0.948 of the true top 10 at ef 32, and 0.988 on the grid.
//   Both: dim + 8 bytes per row.
// Binary (Cosine): RaBitQ-style. Rows are centred on the segment's mean m (non-negative data such
//   as pixels would otherwise set every sign bit), rotated by a fixed random rotation R (sign flips
//   and Walsh-Hadamard transforms, padding to D = dim rounded up to a power of two), and kept as
//   the signs s of c = R(x - m), with f = |c|^2 / |c|_1. signs/sqrt(D) is the binary point
//   nearest c's direction, and <q, x> ~ <q, m> + f <Rq, s>. The rotated query keeps 4 bits per
//   dimension as bit planes, so <Rq, s> costs four AND-popcounts per row. D/8 + 8 bytes per row.
//
// One block, laid out as its file (saved once, mmap'd at open): header | per-kind columns.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/segment.h"
#include "tessera/options.h"
#include "util/file_util.h"

namespace tessera {

class ThreadPool;

// A query in the codes' form; built by QuantizedCodes::Prepare.
struct QuantizedQuery {
  std::vector<int8_t> code;  // Int8
  float scale = 0, sqnorm = 0;
  std::vector<uint64_t> planes;  // Binary: 4 planes of `words` words, low bit first
  float low = 0, step = 0, sum_levels = 0, dot_mean = 0;
};

class QuantizedCodes {
 public:
  static std::shared_ptr<const QuantizedCodes> Build(const Segment& segment, Metric metric, QuantizationKind kind);
  // The codes saved at path, or nullptr when there are none usable for this segment, metric and kind.
  // pool, where given, shares the checksum.
  static std::shared_ptr<const QuantizedCodes> Open(const std::string& path, const Segment& segment, Metric metric, QuantizationKind kind,
                                                    bool mmap, ThreadPool* pool = nullptr);
  void Save(const std::string& path) const;

  QuantizedQuery Prepare(const float* query) const;
  // out[i] = estimated distance (smaller is closer; the score is its negation) from query to rows[i].
  void Distances(const QuantizedQuery& query, const uint32_t* rows, size_t n, float* out) const;
  // The same for the consecutive rows [begin, begin + n), through the multi-row kernels.
  void DistancesOfRange(const QuantizedQuery& query, uint32_t begin, uint32_t n, float* out) const;
  // Int8 only: estimated distances between rows (a graph built over the codes).
  void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const;

  QuantizationKind kind() const;
  // Int8 codes of the Euclidean grid (see above).
  bool on_grid() const;
  size_t bytes() const { return block_.size(); }

  struct Header;

 private:
  QuantizedCodes() = default;
  void Bind();
  float Int8Distance(float scale, float sqnorm, uint32_t row, int32_t dot) const;
  float BinaryDistance(const QuantizedQuery& q, uint32_t row, const uint32_t* plane_counts) const;

  Region block_;
  const Header* header_ = nullptr;
  // Int8
  const int8_t* codes_ = nullptr;
  const float* scales_ = nullptr;
  const float* sqnorms_ = nullptr;
  // Binary
  const float* mean_ = nullptr;
  const uint64_t* bits_ = nullptr;
  const float* factors_ = nullptr;
  const float* sign_counts_ = nullptr;
};

using QuantizedCodesPtr = std::shared_ptr<const QuantizedCodes>;

}  // namespace tessera
