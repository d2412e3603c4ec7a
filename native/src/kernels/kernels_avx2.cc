// Compiled with -mavx2 -mfma only; called only after CPU detection says both exist.
#include <immintrin.h>

#include "tessera/kernels.h"

namespace tessera {
namespace {

inline float HorizontalSum(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v);
  __m128 hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  __m128 shuf = _mm_movehdup_ps(lo);
  __m128 sums = _mm_add_ps(lo, shuf);
  shuf = _mm_movehl_ps(shuf, sums);
  return _mm_cvtss_f32(_mm_add_ss(sums, shuf));
}

// Two accumulators hide FMA latency; the tail is masked so odd dimensions stay in SIMD.
inline __m256 TailMask(size_t left) {
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - left)));
}

float Dot(const float* a, const float* b, size_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
  }
  for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
  if (i < n) {
    __m256i mask = _mm256_castps_si256(TailMask(n - i));
    acc1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask), acc1);
  }
  return HorizontalSum(_mm256_add_ps(acc0, acc1));
}

float L2sq(const float* a, const float* b, size_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    acc0 = _mm256_fmadd_ps(d0, d0, acc0);
    acc1 = _mm256_fmadd_ps(d1, d1, acc1);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    acc0 = _mm256_fmadd_ps(d, d, acc0);
  }
  if (i < n) {
    __m256i mask = _mm256_castps_si256(TailMask(n - i));
    __m256 d = _mm256_sub_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask));
    acc1 = _mm256_fmadd_ps(d, d, acc1);
  }
  return HorizontalSum(_mm256_add_ps(acc0, acc1));
}

// Four rows per pass: one load of q feeds four independent FMA chains.
template <bool kL2>
void Rows(const float* q, const float* rows, size_t n, size_t count, float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const float* a = rows + r * n;
    const float *b = a + n, *c = b + n, *d = c + n;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    auto step = [&](__m256 x, __m256 va, __m256 vb, __m256 vc, __m256 vd) {
      if constexpr (kL2) {
        va = _mm256_sub_ps(x, va);
        vb = _mm256_sub_ps(x, vb);
        vc = _mm256_sub_ps(x, vc);
        vd = _mm256_sub_ps(x, vd);
        s0 = _mm256_fmadd_ps(va, va, s0);
        s1 = _mm256_fmadd_ps(vb, vb, s1);
        s2 = _mm256_fmadd_ps(vc, vc, s2);
        s3 = _mm256_fmadd_ps(vd, vd, s3);
      } else {
        s0 = _mm256_fmadd_ps(x, va, s0);
        s1 = _mm256_fmadd_ps(x, vb, s1);
        s2 = _mm256_fmadd_ps(x, vc, s2);
        s3 = _mm256_fmadd_ps(x, vd, s3);
      }
    };
    for (; i + 8 <= n; i += 8)
      step(_mm256_loadu_ps(q + i), _mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), _mm256_loadu_ps(c + i), _mm256_loadu_ps(d + i));
    if (i < n) {
      __m256i m = _mm256_castps_si256(TailMask(n - i));
      step(_mm256_maskload_ps(q + i, m), _mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), _mm256_maskload_ps(c + i, m),
           _mm256_maskload_ps(d + i, m));
    }
    out[r] = HorizontalSum(s0);
    out[r + 1] = HorizontalSum(s1);
    out[r + 2] = HorizontalSum(s2);
    out[r + 3] = HorizontalSum(s3);
  }
  for (; r < count; ++r) out[r] = kL2 ? L2sq(q, rows + r * n, n) : Dot(q, rows + r * n, n);
}

}  // namespace

const Kernels& Avx2Kernels() {
  static const Kernels k{"avx2", Dot, L2sq, Rows<false>, Rows<true>};
  return k;
}

}  // namespace tessera
