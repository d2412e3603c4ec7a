// Compiled with AVX-512 flags only; called only after CPU detection says AVX-512 F/BW/DQ/VL exist.
#include <immintrin.h>

#include "kernels/avx512_int8.h"
#include "tessera/kernels.h"

namespace tessera {
namespace {

inline __mmask16 TailMask(size_t left) { return static_cast<__mmask16>((1u << left) - 1); }

float Dot(const float* a, const float* b, size_t n) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), acc1);
  }
  for (; i + 16 <= n; i += 16) acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc0);
  if (i < n) {
    __mmask16 m = TailMask(n - i);
    acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

float L2sq(const float* a, const float* b, size_t n) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    acc0 = _mm512_fmadd_ps(d0, d0, acc0);
    acc1 = _mm512_fmadd_ps(d1, d1, acc1);
  }
  for (; i + 16 <= n; i += 16) {
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    acc0 = _mm512_fmadd_ps(d, d, acc0);
  }
  if (i < n) {
    __mmask16 m = TailMask(n - i);
    __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i));
    acc1 = _mm512_fmadd_ps(d, d, acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
}

// Four rows per pass: one load of q feeds four independent FMA chains, and each row costs one
// horizontal sum (a row at a time, the sum and the short chains cost as much as the FMAs at 128-d).
template <bool kL2>
void Rows(const float* q, const float* rows, size_t n, size_t count, float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const float* a = rows + r * n;
    const float *b = a + n, *c = b + n, *d = c + n;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    auto step = [&](__m512 x, __m512 va, __m512 vb, __m512 vc, __m512 vd) {
      if constexpr (kL2) {
        va = _mm512_sub_ps(x, va);
        vb = _mm512_sub_ps(x, vb);
        vc = _mm512_sub_ps(x, vc);
        vd = _mm512_sub_ps(x, vd);
        s0 = _mm512_fmadd_ps(va, va, s0);
        s1 = _mm512_fmadd_ps(vb, vb, s1);
        s2 = _mm512_fmadd_ps(vc, vc, s2);
        s3 = _mm512_fmadd_ps(vd, vd, s3);
      } else {
        s0 = _mm512_fmadd_ps(x, va, s0);
        s1 = _mm512_fmadd_ps(x, vb, s1);
        s2 = _mm512_fmadd_ps(x, vc, s2);
        s3 = _mm512_fmadd_ps(x, vd, s3);
      }
    };
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
      step(_mm512_loadu_ps(q + i), _mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), _mm512_loadu_ps(c + i), _mm512_loadu_ps(d + i));
    if (i < n) {
      __mmask16 m = TailMask(n - i);
      step(_mm512_maskz_loadu_ps(m, q + i), _mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i),
           _mm512_maskz_loadu_ps(m, c + i), _mm512_maskz_loadu_ps(m, d + i));
    }
    out[r] = _mm512_reduce_add_ps(s0);
    out[r + 1] = _mm512_reduce_add_ps(s1);
    out[r + 2] = _mm512_reduce_add_ps(s2);
    out[r + 3] = _mm512_reduce_add_ps(s3);
  }
  for (; r < count; ++r) out[r] = kL2 ? L2sq(q, rows + r * n, n) : Dot(q, rows + r * n, n);
}

// |a| as unsigned bytes times signed b: vpmaddubsw adds adjacent products into int16 (at most
// 2 * 127 * 127 = 32258 since codes avoid -128, so it never saturates), vpmaddwd widens.
inline __m512i DotI8Step(__m512i abs_a, __m512i signed_b, __m512i acc) {
  return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(abs_a, signed_b), _mm512_set1_epi16(1)));
}

}  // namespace

const Kernels& Avx512Kernels() {
  // Without VPOPCNTDQ a 512-bit vpshufb popcount is no faster than the AVX2 one, which this CPU
  // also runs (SupportedKernels checks), so the popcounts are the avx2 family's.
  static const Kernels k{"avx512",
                         Dot,
                         L2sq,
                         Rows<false>,
                         Rows<true>,
                         DotI8With<DotI8Step>,
                         DotI8RowsWith<DotI8Step>,
                         Avx2Kernels().hamming,
                         Avx2Kernels().hamming_rows,
                         Avx2Kernels().and_popcount,
                         Avx2Kernels().and_popcount_rows};
  return k;
}

}  // namespace tessera
