// The AVX-512 int8 dot loops, shared by the avx512 and avx512-icl families, which differ only in
// the step that multiplies |a| by b with a's sign and accumulates (vpmaddubsw + vpmaddwd, or VNNI's
// vpdpbusd). Included only by those two translation units, each compiled with its own target
// flags; everything here has internal linkage, so neither's code can stand in for the other's.
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace {

inline __mmask64 ByteMask(size_t left) { return left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1; }

// b with a's sign (AVX-512 has no vpsignb; where a is 0 the product is 0 anyway).
inline __m512i SignLike(__m512i b, __mmask64 a_negative) { return _mm512_mask_sub_epi8(b, a_negative, _mm512_setzero_si512(), b); }

// Step(abs_a, signed_b, acc) adds the products of 64 byte pairs into acc's int32 lanes. The tail
// is a masked load: masked-off bytes read as 0 and never fault.
template <__m512i (*Step)(__m512i, __m512i, __m512i)>
int32_t DotI8With(const int8_t* a, const int8_t* b, size_t n) {
  __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m512i a0 = _mm512_loadu_si512(a + i), a1 = _mm512_loadu_si512(a + i + 64);
    acc0 = Step(_mm512_abs_epi8(a0), SignLike(_mm512_loadu_si512(b + i), _mm512_movepi8_mask(a0)), acc0);
    acc1 = Step(_mm512_abs_epi8(a1), SignLike(_mm512_loadu_si512(b + i + 64), _mm512_movepi8_mask(a1)), acc1);
  }
  for (; i < n; i += 64) {
    __mmask64 m = ByteMask(n - i);
    __m512i a0 = _mm512_maskz_loadu_epi8(m, a + i);
    acc0 = Step(_mm512_abs_epi8(a0), SignLike(_mm512_maskz_loadu_epi8(m, b + i), _mm512_movepi8_mask(a0)), acc0);
  }
  return _mm512_reduce_add_epi32(_mm512_add_epi32(acc0, acc1));
}

// |a - b| lies in [0, 127] for codes in [0, 127], so the step takes it as both operands.
template <__m512i (*Step)(__m512i, __m512i, __m512i)>
int32_t L2sqU7With(const int8_t* a, const int8_t* b, size_t n) {
  __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m512i d0 = _mm512_abs_epi8(_mm512_sub_epi8(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i)));
    __m512i d1 = _mm512_abs_epi8(_mm512_sub_epi8(_mm512_loadu_si512(a + i + 64), _mm512_loadu_si512(b + i + 64)));
    acc0 = Step(d0, d0, acc0);
    acc1 = Step(d1, d1, acc1);
  }
  for (; i < n; i += 64) {
    __mmask64 m = ByteMask(n - i);
    __m512i d0 = _mm512_abs_epi8(_mm512_sub_epi8(_mm512_maskz_loadu_epi8(m, a + i), _mm512_maskz_loadu_epi8(m, b + i)));
    acc0 = Step(d0, d0, acc0);
  }
  return _mm512_reduce_add_epi32(_mm512_add_epi32(acc0, acc1));
}

// Four rows per pass share q's loads, |q| and its sign mask.
template <__m512i (*Step)(__m512i, __m512i, __m512i)>
void DotI8RowsWith(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const int8_t* a = rows + r * n;
    const int8_t *b = a + n, *c = b + n, *d = c + n;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    // Full blocks use plain loads (masked ones measured slower here); only the tail is masked.
    auto block = [&](size_t i, auto load) {
      __m512i x = load(q + i), ax = _mm512_abs_epi8(x);
      __mmask64 neg = _mm512_movepi8_mask(x);
      s0 = Step(ax, SignLike(load(a + i), neg), s0);
      s1 = Step(ax, SignLike(load(b + i), neg), s1);
      s2 = Step(ax, SignLike(load(c + i), neg), s2);
      s3 = Step(ax, SignLike(load(d + i), neg), s3);
    };
    size_t i = 0;
    for (; i + 64 <= n; i += 64) block(i, [](const int8_t* p) { return _mm512_loadu_si512(p); });
    if (i < n) block(i, [m = ByteMask(n - i)](const int8_t* p) { return _mm512_maskz_loadu_epi8(m, p); });
    out[r] = _mm512_reduce_add_epi32(s0);
    out[r + 1] = _mm512_reduce_add_epi32(s1);
    out[r + 2] = _mm512_reduce_add_epi32(s2);
    out[r + 3] = _mm512_reduce_add_epi32(s3);
  }
  for (; r < count; ++r) out[r] = DotI8With<Step>(q, rows + r * n, n);
}

}  // namespace
}  // namespace tessera
