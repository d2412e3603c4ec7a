// Compiled with AVX-512 F/BW/VL plus VNNI and VPOPCNTDQ; called only after CPU detection says all
// of them exist. Only the quantized kernels live here; the f32 ones are the avx512 family's.
#include <immintrin.h>

#include "kernels/avx512_int8.h"
#include "tessera/kernels.h"

namespace tessera {
namespace {

// vpdpbusd multiplies |a| (unsigned) by signed b and adds each group of four into an int32 lane
// without intermediate saturation.
inline __m512i DotI8Step(__m512i abs_a, __m512i signed_b, __m512i acc) { return _mm512_dpbusd_epi32(acc, abs_a, signed_b); }

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
    icl.dot_i8 = DotI8With<DotI8Step>;
    icl.dot_i8_rows = DotI8RowsWith<DotI8Step>;
    icl.l2sq_u7 = L2sqU7With<DotI8Step>;
    icl.hamming = Popcount<false>;
    icl.hamming_rows = RowsOneByOne<Popcount<false>>;
    icl.and_popcount = Popcount<true>;
    icl.and_popcount_rows = RowsOneByOne<Popcount<true>>;
    return icl;
  }();
  return k;
}

}  // namespace tessera
