#include <bit>

#include "tessera/kernels.h"

namespace tessera {
namespace {

// Four independent accumulators let the compiler pipeline the loop without reassociating floats.
float Dot(const float* a, const float* b, size_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

float L2sq(const float* a, const float* b, size_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float d0 = a[i] - b[i], d1 = a[i + 1] - b[i + 1], d2 = a[i + 2] - b[i + 2], d3 = a[i + 3] - b[i + 3];
    s0 += d0 * d0;
    s1 += d1 * d1;
    s2 += d2 * d2;
    s3 += d3 * d3;
  }
  for (; i < n; ++i) {
    float d = a[i] - b[i];
    s0 += d * d;
  }
  return (s0 + s1) + (s2 + s3);
}

int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  int32_t s = 0;
  for (size_t i = 0; i < n; ++i) s += int32_t(a[i]) * b[i];
  return s;
}

int32_t L2sqU7(const int8_t* a, const int8_t* b, size_t n) {
  int32_t s = 0;
  for (size_t i = 0; i < n; ++i) {
    int32_t d = int32_t(a[i]) - b[i];
    s += d * d;
  }
  return s;
}

uint32_t Hamming(const uint64_t* a, const uint64_t* b, size_t words) {
  uint32_t s = 0;
  for (size_t i = 0; i < words; ++i) s += std::popcount(a[i] ^ b[i]);
  return s;
}

uint32_t AndPopcount(const uint64_t* a, const uint64_t* b, size_t words) {
  uint32_t s = 0;
  for (size_t i = 0; i < words; ++i) s += std::popcount(a[i] & b[i]);
  return s;
}

}  // namespace

const Kernels& ScalarKernels() {
  static const Kernels k{"scalar",
                         Dot,
                         L2sq,
                         RowsOneByOne<Dot>,
                         RowsOneByOne<L2sq>,
                         RowsAtOneByOne<Dot>,
                         RowsAtOneByOne<L2sq>,
                         DotI8,
                         RowsOneByOne<DotI8>,
                         L2sqU7,
                         Hamming,
                         RowsOneByOne<Hamming>,
                         AndPopcount,
                         RowsOneByOne<AndPopcount>};
  return k;
}

}  // namespace tessera
