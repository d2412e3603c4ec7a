// Compiled with AVX-512 flags only; called only after CPU detection says AVX-512 F/BW/DQ/VL exist.
#include <immintrin.h>

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

inline __mmask64 ByteMask(size_t left) { return left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1; }

// b with a's sign (AVX-512 has no vpsignb; where a is 0 the product is 0 anyway).
inline __m512i SignLike(__m512i b, __mmask64 a_negative) { return _mm512_mask_sub_epi8(b, a_negative, _mm512_setzero_si512(), b); }

// |a| as unsigned bytes times signed b: vpmaddubsw adds adjacent products into int16 (at most
// 2 * 127 * 127 = 32258 since codes avoid -128, so it never saturates), vpmaddwd widens.
inline __m512i DotI8Step(__m512i abs_a, __m512i signed_b, __m512i acc) {
  return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(abs_a, signed_b), _mm512_set1_epi16(1)));
}

// The tail is a masked load: masked-off bytes read as 0 and never fault.
int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m512i a0 = _mm512_loadu_si512(a + i), a1 = _mm512_loadu_si512(a + i + 64);
    acc0 = DotI8Step(_mm512_abs_epi8(a0), SignLike(_mm512_loadu_si512(b + i), _mm512_movepi8_mask(a0)), acc0);
    acc1 = DotI8Step(_mm512_abs_epi8(a1), SignLike(_mm512_loadu_si512(b + i + 64), _mm512_movepi8_mask(a1)), acc1);
  }
  for (; i < n; i += 64) {
    __mmask64 m = ByteMask(n - i);
    __m512i a0 = _mm512_maskz_loadu_epi8(m, a + i);
    acc0 = DotI8Step(_mm512_abs_epi8(a0), SignLike(_mm512_maskz_loadu_epi8(m, b + i), _mm512_movepi8_mask(a0)), acc0);
  }
  return _mm512_reduce_add_epi32(_mm512_add_epi32(acc0, acc1));
}

// Four rows per pass share q's loads, |q| and its sign mask.
void DotI8Rows(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const int8_t* a = rows + r * n;
    const int8_t *b = a + n, *c = b + n, *d = c + n;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    // Full blocks use plain loads (masked ones measured slower here); only the tail is masked.
    auto block = [&](size_t i, auto load) {
      __m512i x = load(q + i), ax = _mm512_abs_epi8(x);
      __mmask64 neg = _mm512_movepi8_mask(x);
      s0 = DotI8Step(ax, SignLike(load(a + i), neg), s0);
      s1 = DotI8Step(ax, SignLike(load(b + i), neg), s1);
      s2 = DotI8Step(ax, SignLike(load(c + i), neg), s2);
      s3 = DotI8Step(ax, SignLike(load(d + i), neg), s3);
    };
    size_t i = 0;
    for (; i + 64 <= n; i += 64) block(i, [](const int8_t* p) { return _mm512_loadu_si512(p); });
    if (i < n) block(i, [m = ByteMask(n - i)](const int8_t* p) { return _mm512_maskz_loadu_epi8(m, p); });
    out[r] = _mm512_reduce_add_epi32(s0);
    out[r + 1] = _mm512_reduce_add_epi32(s1);
    out[r + 2] = _mm512_reduce_add_epi32(s2);
    out[r + 3] = _mm512_reduce_add_epi32(s3);
  }
  for (; r < count; ++r) out[r] = DotI8(q, rows + r * n, n);
}

}  // namespace

const Kernels& Avx512Kernels() {
  // Without VPOPCNTDQ a 512-bit vpshufb popcount is no faster than the AVX2 one, which this CPU
  // also runs (SupportedKernels checks), so the popcounts are the avx2 family's.
  static const Kernels k{"avx512",
                         Dot,
                         L2sq,
                         RowsOneByOne<Dot>,
                         RowsOneByOne<L2sq>,
                         DotI8,
                         DotI8Rows,
                         Avx2Kernels().hamming,
                         Avx2Kernels().hamming_rows,
                         Avx2Kernels().and_popcount,
                         Avx2Kernels().and_popcount_rows};
  return k;
}

}  // namespace tessera
