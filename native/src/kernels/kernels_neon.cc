// NEON is baseline on arm64, so this unit needs no extra flags.
#include <arm_neon.h>

#include "tessera/kernels.h"

namespace tessera {
namespace {

float Dot(const float* a, const float* b, size_t n) {
  float32x4_t acc0 = vdupq_n_f32(0), acc1 = vdupq_n_f32(0);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    acc0 = vfmaq_f32(acc0, vld1q_f32(a + i), vld1q_f32(b + i));
    acc1 = vfmaq_f32(acc1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
  }
  float s = vaddvq_f32(vaddq_f32(acc0, acc1));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

float L2sq(const float* a, const float* b, size_t n) {
  float32x4_t acc0 = vdupq_n_f32(0), acc1 = vdupq_n_f32(0);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    float32x4_t d0 = vsubq_f32(vld1q_f32(a + i), vld1q_f32(b + i));
    float32x4_t d1 = vsubq_f32(vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
    acc0 = vfmaq_f32(acc0, d0, d0);
    acc1 = vfmaq_f32(acc1, d1, d1);
  }
  float s = vaddvq_f32(vaddq_f32(acc0, acc1));
  for (; i < n; ++i) {
    float d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

// vmull_s8 / vmlal_high_s8 put two products in each int16 lane (at most 2 * 127 * 127 = 32258
// since codes avoid -128, so it never overflows); vpadalq_s16 widens pairs into int32.
int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    int8x16_t a0 = vld1q_s8(a + i), b0 = vld1q_s8(b + i), a1 = vld1q_s8(a + i + 16), b1 = vld1q_s8(b + i + 16);
    acc0 = vpadalq_s16(acc0, vmlal_high_s8(vmull_s8(vget_low_s8(a0), vget_low_s8(b0)), a0, b0));
    acc1 = vpadalq_s16(acc1, vmlal_high_s8(vmull_s8(vget_low_s8(a1), vget_low_s8(b1)), a1, b1));
  }
  if (i + 16 <= n) {
    int8x16_t a0 = vld1q_s8(a + i), b0 = vld1q_s8(b + i);
    acc0 = vpadalq_s16(acc0, vmlal_high_s8(vmull_s8(vget_low_s8(a0), vget_low_s8(b0)), a0, b0));
    i += 16;
  }
  int32_t s = vaddvq_s32(vaddq_s32(acc0, acc1));
  for (; i < n; ++i) s += int32_t(a[i]) * b[i];
  return s;
}

// vabdq_u8 gives |a - b| (at most 127), vmull_u8 its square in 16 bits, vpadalq_u16 widens.
int32_t L2sqU7(const int8_t* a, const int8_t* b, size_t n) {
  uint32x4_t acc = vdupq_n_u32(0);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t d = vabdq_u8(vld1q_u8(reinterpret_cast<const uint8_t*>(a + i)), vld1q_u8(reinterpret_cast<const uint8_t*>(b + i)));
    acc = vpadalq_u16(acc, vmull_u8(vget_low_u8(d), vget_low_u8(d)));
    acc = vpadalq_u16(acc, vmull_high_u8(d, d));
  }
  int32_t s = int32_t(vaddvq_u32(acc));
  for (; i < n; ++i) s += (int32_t(a[i]) - b[i]) * (int32_t(a[i]) - b[i]);
  return s;
}

// popcount(a OP b): vcntq_u8 counts per byte, pairwise adds widen into int32 lanes (exact for any
// length), an odd last word goes through the 64-bit vcnt.
template <bool kAnd>
uint32_t Popcount(const uint64_t* a, const uint64_t* b, size_t words) {
  auto op = [](uint64x2_t x, uint64x2_t y) { return vreinterpretq_u8_u64(kAnd ? vandq_u64(x, y) : veorq_u64(x, y)); };
  uint32x4_t acc = vdupq_n_u32(0);
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    uint8x16_t c = vaddq_u8(vcntq_u8(op(vld1q_u64(a + i), vld1q_u64(b + i))), vcntq_u8(op(vld1q_u64(a + i + 2), vld1q_u64(b + i + 2))));
    acc = vpadalq_u16(acc, vpaddlq_u8(c));
  }
  if (i + 2 <= words) {
    acc = vpadalq_u16(acc, vpaddlq_u8(vcntq_u8(op(vld1q_u64(a + i), vld1q_u64(b + i)))));
    i += 2;
  }
  uint32_t s = vaddvq_u32(acc);
  if (i < words) s += vaddv_u8(vcnt_u8(vcreate_u8(kAnd ? a[i] & b[i] : a[i] ^ b[i])));
  return s;
}

}  // namespace

const Kernels& NeonKernels() {
  static const Kernels k{"neon",
                         Dot,
                         L2sq,
                         RowsOneByOne<Dot>,
                         RowsOneByOne<L2sq>,
                         RowsAtOneByOne<Dot>,
                         RowsAtOneByOne<L2sq>,
                         DotI8,
                         RowsOneByOne<DotI8>,
                         L2sqU7,
                         Popcount<false>,
                         RowsOneByOne<Popcount<false>>,
                         Popcount<true>,
                         RowsOneByOne<Popcount<true>>};
  return k;
}

}  // namespace tessera
