// Compiled with -march=armv8.2-a+dotprod; called only after HWCAP says sdot exists. Only the
// int8 dot and code distance live here; the other kernels are the neon family's.
#include <arm_neon.h>

#include "tessera/kernels.h"

namespace tessera {
namespace {

// sdot adds each group of four int8 products into an int32 lane.
int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = vdotq_s32(acc0, vld1q_s8(a + i), vld1q_s8(b + i));
    acc1 = vdotq_s32(acc1, vld1q_s8(a + i + 16), vld1q_s8(b + i + 16));
  }
  if (i + 16 <= n) {
    acc0 = vdotq_s32(acc0, vld1q_s8(a + i), vld1q_s8(b + i));
    i += 16;
  }
  int32_t s = vaddvq_s32(vaddq_s32(acc0, acc1));
  for (; i < n; ++i) s += int32_t(a[i]) * b[i];
  return s;
}

// udot of |a - b| with itself: each group of four squares into a uint32 lane.
int32_t L2sqU7(const int8_t* a, const int8_t* b, size_t n) {
  uint32x4_t acc = vdupq_n_u32(0);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t d = vabdq_u8(vld1q_u8(reinterpret_cast<const uint8_t*>(a + i)), vld1q_u8(reinterpret_cast<const uint8_t*>(b + i)));
    acc = vdotq_u32(acc, d, d);
  }
  int32_t s = int32_t(vaddvq_u32(acc));
  for (; i < n; ++i) s += (int32_t(a[i]) - b[i]) * (int32_t(a[i]) - b[i]);
  return s;
}

}  // namespace

const Kernels& NeonDotprodKernels() {
  static const Kernels k = [] {
    Kernels dotprod = NeonKernels();
    dotprod.name = "neon-dotprod";
    dotprod.dot_i8 = DotI8;
    dotprod.dot_i8_rows = RowsOneByOne<DotI8>;
    dotprod.l2sq_u7 = L2sqU7;
    return dotprod;
  }();
  return k;
}

}  // namespace tessera
