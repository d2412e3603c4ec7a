// Compiled with AVX-512 F/BW/VL plus VNNI and VPOPCNTDQ; called only after CPU detection says all
// of them exist. Only the quantized kernels live here; the f32 ones are the avx512 family's.
#include <immintrin.h>

#include "tessera/kernels.h"

namespace tessera {
namespace {

inline __mmask64 ByteMask(size_t left) { return left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1; }

// b with a's sign (AVX-512 has no vpsignb; where a is 0 the product is 0 anyway).
inline __m512i SignLike(__m512i b, __mmask64 a_negative) { return _mm512_mask_sub_epi8(b, a_negative, _mm512_setzero_si512(), b); }

// vpdpbusd multiplies |a| (unsigned) by signed b and adds each group of four into an int32 lane
// without intermediate saturation.
int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m512i a0 = _mm512_loadu_si512(a + i), a1 = _mm512_loadu_si512(a + i + 64);
    acc0 = _mm512_dpbusd_epi32(acc0, _mm512_abs_epi8(a0), SignLike(_mm512_loadu_si512(b + i), _mm512_movepi8_mask(a0)));
    acc1 = _mm512_dpbusd_epi32(acc1, _mm512_abs_epi8(a1), SignLike(_mm512_loadu_si512(b + i + 64), _mm512_movepi8_mask(a1)));
  }
  // The tail is a masked load: masked-off bytes read as 0 and never fault.
  for (; i < n; i += 64) {
    __mmask64 m = ByteMask(n - i);
    __m512i a0 = _mm512_maskz_loadu_epi8(m, a + i);
    acc0 = _mm512_dpbusd_epi32(acc0, _mm512_abs_epi8(a0), SignLike(_mm512_maskz_loadu_epi8(m, b + i), _mm512_movepi8_mask(a0)));
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
      s0 = _mm512_dpbusd_epi32(s0, ax, SignLike(load(a + i), neg));
      s1 = _mm512_dpbusd_epi32(s1, ax, SignLike(load(b + i), neg));
      s2 = _mm512_dpbusd_epi32(s2, ax, SignLike(load(c + i), neg));
      s3 = _mm512_dpbusd_epi32(s3, ax, SignLike(load(d + i), neg));
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

// popcount(a OP b) over 8 words per vpopcntq; only the last partial group is a masked load (masked
// loads in the main loop measured slower).
template <bool kAnd>
uint32_t Popcount(const uint64_t* a, const uint64_t* b, size_t words) {
  auto op = [](__m512i x, __m512i y) { return _mm512_popcnt_epi64(kAnd ? _mm512_and_si512(x, y) : _mm512_xor_si512(x, y)); };
  __m512i acc = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 8 <= words; i += 8) acc = _mm512_add_epi64(acc, op(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i)));
  if (i < words) {
    __mmask8 m = __mmask8((1u << (words - i)) - 1);
    acc = _mm512_add_epi64(acc, op(_mm512_maskz_loadu_epi64(m, a + i), _mm512_maskz_loadu_epi64(m, b + i)));
  }
  return uint32_t(_mm512_reduce_add_epi64(acc));
}

}  // namespace

const Kernels& Avx512IclKernels() {
  static const Kernels k = [] {
    Kernels icl = Avx512Kernels();
    icl.name = "avx512-icl";
    icl.dot_i8 = DotI8;
    icl.dot_i8_rows = DotI8Rows;
    icl.hamming = Popcount<false>;
    icl.hamming_rows = RowsOneByOne<Popcount<false>>;
    icl.and_popcount = Popcount<true>;
    icl.and_popcount_rows = RowsOneByOne<Popcount<true>>;
    return icl;
  }();
  return k;
}

}  // namespace tessera
