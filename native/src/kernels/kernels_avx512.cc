// Compiled with AVX-512 flags only; called only after CPU detection says AVX-512 F/BW/DQ/VL exist.
#include <immintrin.h>

#include "kernels/avx512_int8.h"
#include "kernels/four_rows.h"
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

struct Avx512 {
  using Reg = __m512;
  static constexpr size_t kWidth = 16;
  static Reg Zero() { return _mm512_setzero_ps(); }
  static Reg Load(const float* p) { return _mm512_loadu_ps(p); }
  static Reg LoadTail(const float* p, size_t left) { return _mm512_maskz_loadu_ps(TailMask(left), p); }
  static Reg Add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static Reg Sub(Reg a, Reg b) { return _mm512_sub_ps(a, b); }
  static Reg Fmadd(Reg a, Reg b, Reg acc) { return _mm512_fmadd_ps(a, b, acc); }
  static float Sum(Reg v) { return _mm512_reduce_add_ps(v); }
};

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
                         FourRows<Avx512, false, Dot>,
                         FourRows<Avx512, true, L2sq>,
                         FourRowsAt<Avx512, false, Dot>,
                         FourRowsAt<Avx512, true, L2sq>,
                         DotI8With<DotI8Step>,
                         DotI8RowsWith<DotI8Step>,
                         L2sqU7With<DotI8Step>,
                         Avx2Kernels().hamming,
                         Avx2Kernels().hamming_rows,
                         Avx2Kernels().and_popcount,
                         Avx2Kernels().and_popcount_rows};
  return k;
}

}  // namespace tessera
