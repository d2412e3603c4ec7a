#include "index/quantized_codes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <tuple>
#include <utility>

#include "tessera/error.h"
#include "tessera/kernels.h"
#include "util/crc32c.h"
#include "util/prefetch.h"

namespace tessera {

struct QuantizedCodes::Header {
  uint64_t magic;
  uint32_t kind;  // QuantizationKind
  uint32_t metric;
  uint32_t rows;
  uint32_t dim;
  uint32_t words;     // Binary: 64-bit words per row
  uint32_t body_crc;  // of the block after the header: a damaged file is never walked
  uint64_t block_bytes;
  float grid_low, grid_step;  // Int8 Euclidean: the segment's shared grid
  uint32_t crc;               // of the header bytes before it
  uint32_t pad;
};

namespace {

constexpr uint64_t kMagic = 0x3430444f43515354;  // "TSQCOD04"
constexpr int kPlanes = 4;                       // bits per query dimension (Binary)
constexpr uint32_t kBlockRows = 64;

size_t Align(size_t x) { return (x + 63) & ~size_t(63); }

// Offsets of the columns after the header; the same function lays out a build and reads a file.
struct Layout {
  size_t a, b, c, d, total;
};

Layout LayoutOf(QuantizationKind kind, uint32_t rows, uint32_t dim, uint32_t words) {
  Layout l{};
  l.a = Align(sizeof(QuantizedCodes::Header));
  if (kind == QuantizationKind::kInt8) {
    l.b = Align(l.a + size_t(rows) * dim);    // codes | scales
    l.c = Align(l.b + sizeof(float) * rows);  // sqnorms
    l.total = l.c + sizeof(float) * rows;
  } else {
    l.b = Align(l.a + sizeof(float) * dim);                      // mean | bits
    l.c = Align(l.b + sizeof(uint64_t) * size_t(rows) * words);  // factors
    l.d = Align(l.c + sizeof(float) * rows);                     // sign counts
    l.total = l.d + sizeof(float) * rows;
  }
  return l;
}

uint32_t HeaderCrc(const QuantizedCodes::Header& h) { return Crc32c(&h, offsetof(QuantizedCodes::Header, crc)); }

uint32_t BodyCrc(const void* block, size_t bytes, ThreadPool* pool = nullptr) {
  return ParallelCrc32c(static_cast<const uint8_t*>(block) + sizeof(QuantizedCodes::Header), bytes - sizeof(QuantizedCodes::Header), pool);
}

// Binary codes hold the signs of the rotated vector, whose length is dim rounded up to a power of
// two (the Hadamard transform's size), at least 64.
uint32_t RotatedDim(uint32_t dim) { return std::max<uint32_t>(64, std::bit_ceil(std::max<uint32_t>(dim, 1))); }
uint32_t WordsOf(uint32_t dim) { return RotatedDim(dim) / 64; }

// A fixed random rotation, as RaBitQ rotates before taking signs: without it the signs of an
// axis-aligned residual (say, pixel data) carry far less of its direction. Three rounds of random
// sign flips and a normalized fast Walsh-Hadamard transform, O(D log D) per vector; orthogonal,
// so inner products are kept. x holds dim values and is padded with zeros to RotatedDim(dim).
std::vector<float> Rotate(const float* x, uint32_t dim) {
  uint32_t n = RotatedDim(dim);
  std::vector<float> v(n, 0.0f);
  std::copy(x, x + dim, v.begin());
  float norm = 1.0f / std::sqrt(float(n));
  for (uint64_t round = 0; round < 3; ++round) {
    for (uint32_t i = 0; i < n; ++i) {
      uint64_t h = (round * 0x9E3779B97F4A7C15ull) ^ (uint64_t(i) * 0xBF58476D1CE4E5B9ull);
      h ^= h >> 31;
      h *= 0x94D049BB133111EBull;
      if ((h >> 40) & 1) v[i] = -v[i];
    }
    for (uint32_t len = 1; len < n; len <<= 1)
      for (uint32_t i = 0; i < n; i += len << 1)
        for (uint32_t j = i; j < i + len; ++j) {
          float a = v[j], b = v[j + len];
          v[j] = a + b;
          v[j + len] = a - b;
        }
    for (float& e : v) e *= norm;
  }
  return v;
}

// Codes of v scaled by max |v| into [-127, 127]; returns the scale (0 for a zero vector).
float QuantizeInt8(const float* v, uint32_t dim, int8_t* code) {
  float max = 0;
  for (uint32_t i = 0; i < dim; ++i) max = std::max(max, std::fabs(v[i]));
  float scale = max / 127.0f;
  if (scale == 0) {
    std::fill(code, code + dim, int8_t{0});
    return 0;
  }
  // Rounds half away from zero, as lround does, in a form the compiler vectorizes.
  for (uint32_t i = 0; i < dim; ++i) {
    float x = std::clamp(v[i] / scale, -127.0f, 127.0f);
    code[i] = int8_t(x + (x < 0 ? -0.5f : 0.5f));
  }
  return scale;
}

// Codes of v on the grid low + step * c, c in [0, 127] (values outside the grid clamped to its
// ends); returns sum(c^2), summed in integers so the loop vectorizes (a query is quantized per search).
float QuantizeToGrid(const float* v, uint32_t dim, float low, float step, int8_t* code) {
  float inverse = step > 0 ? 1 / step : 0;
  int32_t sum = 0;
  for (uint32_t i = 0; i < dim; ++i) {
    int32_t c = int32_t(std::clamp((v[i] - low) * inverse, 0.0f, 127.0f) + 0.5f);
    code[i] = int8_t(c);
    sum += c * c;
  }
  return float(sum);
}

// The grid of Euclidean Int8 codes: every present value of the segment within [low, low + 127 step].
std::pair<float, float> GridOf(const Segment& segment) {
  float low = INFINITY, high = -INFINITY;
  for (uint32_t r = 0; r < segment.appended(); ++r) {
    if (!segment.has_vector(r)) continue;
    const float* v = segment.vector(r);
    for (uint32_t i = 0; i < segment.dim(); ++i) low = std::min(low, v[i]), high = std::max(high, v[i]);
  }
  if (!(low <= high)) return {0, 0};
  return {low, (high - low) / 127.0f};
}

float SquaredNorm(const float* v, uint32_t dim) {
  double sum = 0;
  for (uint32_t i = 0; i < dim; ++i) sum += double(v[i]) * v[i];
  return float(sum);
}

}  // namespace

std::shared_ptr<const QuantizedCodes> QuantizedCodes::Build(const Segment& segment, Metric metric, QuantizationKind kind) {
  if (kind == QuantizationKind::kBinary && metric != Metric::kCosine) throw BadRequest("Binary quantization needs the Cosine metric");
  uint32_t rows = segment.appended(), dim = segment.dim(), words = WordsOf(dim);
  Layout layout = LayoutOf(kind, rows, dim, words);
  auto codes = std::shared_ptr<QuantizedCodes>(new QuantizedCodes());
  codes->block_ = Region::Anonymous(layout.total);
  auto* base = static_cast<uint8_t*>(codes->block_.data());
  auto* header = reinterpret_cast<Header*>(base);
  *header = Header{kMagic, uint32_t(kind), uint32_t(metric), rows, dim, words, 0, layout.total, 0, 0, 0, 0};
  if (kind == QuantizationKind::kInt8) {
    auto* code = reinterpret_cast<int8_t*>(base + layout.a);
    auto* scales = reinterpret_cast<float*>(base + layout.b);
    auto* sqnorms = reinterpret_cast<float*>(base + layout.c);
    if (metric == Metric::kEuclidean) std::tie(header->grid_low, header->grid_step) = GridOf(segment);
    float step = header->grid_step;
    for (uint32_t r = 0; r < rows; ++r) {
      if (!segment.has_vector(r)) continue;
      int8_t* row_code = code + size_t(r) * dim;
      if (metric == Metric::kEuclidean) {
        scales[r] = step;
        sqnorms[r] = step * step * QuantizeToGrid(segment.vector(r), dim, header->grid_low, step, row_code);
      } else {
        scales[r] = QuantizeInt8(segment.vector(r), dim, row_code);
        sqnorms[r] = SquaredNorm(segment.vector(r), dim);
      }
    }
  } else {
    auto* mean = reinterpret_cast<float*>(base + layout.a);
    auto* bits = reinterpret_cast<uint64_t*>(base + layout.b);
    auto* factors = reinterpret_cast<float*>(base + layout.c);
    auto* counts = reinterpret_cast<float*>(base + layout.d);
    std::vector<double> sum(dim, 0);
    uint32_t present = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      if (!segment.has_vector(r)) continue;
      ++present;
      for (uint32_t i = 0; i < dim; ++i) sum[i] += segment.vector(r)[i];
    }
    for (uint32_t i = 0; i < dim; ++i) mean[i] = present ? float(sum[i] / present) : 0;
    std::vector<float> centred(dim);
    for (uint32_t r = 0; r < rows; ++r) {
      if (!segment.has_vector(r)) continue;
      const float* v = segment.vector(r);
      for (uint32_t i = 0; i < dim; ++i) centred[i] = v[i] - mean[i];
      std::vector<float> rotated = Rotate(centred.data(), dim);
      uint64_t* row_bits = bits + size_t(r) * words;
      double l1 = 0, l2 = 0;
      for (uint32_t i = 0; i < rotated.size(); ++i) {
        double c = rotated[i];
        l1 += std::fabs(c);
        l2 += c * c;
        if (c > 0) row_bits[i / 64] |= uint64_t(1) << (i % 64);
      }
      factors[r] = l1 > 0 ? float(l2 / l1) : 0;
      uint32_t count = 0;
      for (uint32_t w = 0; w < words; ++w) count += std::popcount(row_bits[w]);
      counts[r] = float(count);
    }
  }
  header->body_crc = BodyCrc(base, layout.total);
  header->crc = HeaderCrc(*header);
  codes->Bind();
  return codes;
}

std::shared_ptr<const QuantizedCodes> QuantizedCodes::Open(const std::string& path, const Segment& segment, Metric metric,
                                                           QuantizationKind kind, bool mmap, ThreadPool* pool) {
  if (!FileExists(path)) return nullptr;
  auto codes = std::shared_ptr<QuantizedCodes>(new QuantizedCodes());
  codes->block_ = Region::OpenFile(path, mmap);
  if (codes->block_.size() < sizeof(Header)) return nullptr;
  const auto* h = static_cast<const Header*>(codes->block_.data());
  if (h->magic != kMagic || h->crc != HeaderCrc(*h) || h->block_bytes != codes->block_.size()) return nullptr;
  if (h->kind != uint32_t(kind) || h->metric != uint32_t(metric) || h->rows != segment.appended() || h->dim != segment.dim())
    return nullptr;
  if (LayoutOf(kind, h->rows, h->dim, h->words).total != h->block_bytes) return nullptr;
  codes->block_.ReadAhead();
  if (BodyCrc(codes->block_.data(), codes->block_.size(), pool) != h->body_crc) return nullptr;
  codes->Bind();
  return codes;
}

void QuantizedCodes::Save(const std::string& path) const {
  WriteFileAtomic(path, std::string_view(static_cast<const char*>(block_.data()), block_.size()));
}

void QuantizedCodes::Bind() {
  const auto* base = static_cast<const uint8_t*>(block_.data());
  header_ = reinterpret_cast<const Header*>(base);
  Layout l = LayoutOf(kind(), header_->rows, header_->dim, header_->words);
  if (kind() == QuantizationKind::kInt8) {
    codes_ = reinterpret_cast<const int8_t*>(base + l.a);
    scales_ = reinterpret_cast<const float*>(base + l.b);
    sqnorms_ = reinterpret_cast<const float*>(base + l.c);
  } else {
    mean_ = reinterpret_cast<const float*>(base + l.a);
    bits_ = reinterpret_cast<const uint64_t*>(base + l.b);
    factors_ = reinterpret_cast<const float*>(base + l.c);
    sign_counts_ = reinterpret_cast<const float*>(base + l.d);
  }
}

bool QuantizedCodes::on_grid() const { return kind() == QuantizationKind::kInt8 && header_->metric == uint32_t(Metric::kEuclidean); }

QuantizationKind QuantizedCodes::kind() const { return QuantizationKind(header_->kind); }

QuantizedQuery QuantizedCodes::Prepare(const float* query) const {
  QuantizedQuery q;
  uint32_t dim = header_->dim;
  if (kind() == QuantizationKind::kInt8) {
    q.code.resize(dim);
    if (on_grid()) {
      q.scale = header_->grid_step;
      q.sqnorm = q.scale * q.scale * QuantizeToGrid(query, dim, header_->grid_low, q.scale, q.code.data());
    } else {
      q.scale = QuantizeInt8(query, dim, q.code.data());
      q.sqnorm = SquaredNorm(query, dim);
    }
    return q;
  }
  uint32_t words = header_->words;
  for (uint32_t i = 0; i < dim; ++i) q.dot_mean += query[i] * mean_[i];
  // The codes are signs of rotated rows, so the query is rotated too (inner products are kept).
  std::vector<float> rotated = Rotate(query, dim);
  auto [lo, hi] = std::minmax_element(rotated.begin(), rotated.end());
  q.low = *lo;
  q.step = (*hi - *lo) / float((1 << kPlanes) - 1);
  q.planes.assign(size_t(kPlanes) * words, 0);
  for (uint32_t i = 0; i < rotated.size(); ++i) {
    uint32_t level = q.step == 0 ? 0 : uint32_t(std::lround((rotated[i] - q.low) / q.step));
    q.sum_levels += float(level);
    for (int p = 0; p < kPlanes; ++p)
      if (level >> p & 1) q.planes[size_t(p) * words + i / 64] |= uint64_t(1) << (i % 64);
  }
  return q;
}

// Euclidean: |q|^2 + |x|^2 - 2 <q, x> (on the grid: of the codes' values); otherwise -<q, x>.
float QuantizedCodes::Int8Distance(float scale, float sqnorm, uint32_t row, int32_t dot) const {
  float ip = scale * scales_[row] * float(dot);
  return header_->metric == uint32_t(Metric::kEuclidean) ? sqnorm + sqnorms_[row] - 2 * ip : -ip;
}

// -(<q, m> + f <q, s>), with <q, s> = sum q_i (2 b_i - 1) for q_i ~ low + step level_i.
float QuantizedCodes::BinaryDistance(const QuantizedQuery& q, uint32_t row, const uint32_t* plane_counts) const {
  float weighted = 0;
  for (int p = 0; p < kPlanes; ++p) weighted += float(plane_counts[p] << p);
  float signs = q.low * (2 * sign_counts_[row] - float(header_->words * 64)) + q.step * (2 * weighted - q.sum_levels);
  return -(q.dot_mean + factors_[row] * signs);
}

void QuantizedCodes::Distances(const QuantizedQuery& q, const uint32_t* rows, size_t n, float* out) const {
  const Kernels& k = ActiveKernels();
  uint32_t dim = header_->dim, words = header_->words;
  if (kind() == QuantizationKind::kInt8) {
    // A walk's batch is one node's unvisited links, read at random: on the grid a row's distance
    // needs its code alone, not its scale and norm (two more cache misses).
    auto code_at = [&](size_t i) { return codes_ + size_t(rows[i]) * dim; };
    if (on_grid()) {
      float step2 = header_->grid_step * header_->grid_step;
      VisitRowsPrefetched(n, dim, code_at, [&](size_t i) { out[i] = step2 * float(k.l2sq_u7(q.code.data(), code_at(i), dim)); });
      return;
    }
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(scales_ + rows[i]), __builtin_prefetch(sqnorms_ + rows[i]);
    VisitRowsPrefetched(n, dim, code_at,
                        [&](size_t i) { out[i] = Int8Distance(q.scale, q.sqnorm, rows[i], k.dot_i8(q.code.data(), code_at(i), dim)); });
    return;
  }
  for (size_t i = 0; i < n; ++i) __builtin_prefetch(factors_ + rows[i]), __builtin_prefetch(sign_counts_ + rows[i]);
  auto bits_at = [&](size_t i) { return bits_ + size_t(rows[i]) * words; };
  VisitRowsPrefetched(n, sizeof(uint64_t) * words, bits_at, [&](size_t i) {
    uint32_t counts[kPlanes];
    for (int p = 0; p < kPlanes; ++p) counts[p] = k.and_popcount(q.planes.data() + size_t(p) * words, bits_at(i), words);
    out[i] = BinaryDistance(q, rows[i], counts);
  });
}

void QuantizedCodes::DistancesOfRange(const QuantizedQuery& q, uint32_t begin, uint32_t n, float* out) const {
  const Kernels& k = ActiveKernels();
  uint32_t dim = header_->dim, words = header_->words;
  for (uint32_t b = 0; b < n; b += kBlockRows) {
    uint32_t count = std::min(kBlockRows, n - b), first = begin + b;
    if (kind() == QuantizationKind::kInt8) {
      int32_t dots[kBlockRows];
      k.dot_i8_rows(q.code.data(), codes_ + size_t(first) * dim, dim, count, dots);
      for (uint32_t i = 0; i < count; ++i) out[b + i] = Int8Distance(q.scale, q.sqnorm, first + i, dots[i]);
      continue;
    }
    uint32_t counts[kPlanes][kBlockRows];
    for (int p = 0; p < kPlanes; ++p)
      k.and_popcount_rows(q.planes.data() + size_t(p) * words, bits_ + size_t(first) * words, words, count, counts[p]);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t row_counts[kPlanes];
      for (int p = 0; p < kPlanes; ++p) row_counts[p] = counts[p][i];
      out[b + i] = BinaryDistance(q, first + i, row_counts);
    }
  }
}

void QuantizedCodes::DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const {
  if (kind() != QuantizationKind::kInt8) throw Internal("row-to-row distances exist only for Int8 codes");
  const Kernels& k = ActiveKernels();
  uint32_t dim = header_->dim;
  const int8_t* code = codes_ + size_t(from) * dim;
  float step2 = header_->grid_step * header_->grid_step;
  for (size_t i = 0; i < n; ++i) {
    const int8_t* other = codes_ + size_t(rows[i]) * dim;
    out[i] = on_grid() ? step2 * float(k.l2sq_u7(code, other, dim))
                       : Int8Distance(scales_[from], sqnorms_[from], rows[i], k.dot_i8(code, other, dim));
  }
}

}  // namespace tessera
