// Distance kernels. Each SIMD family lives in its own translation unit compiled with only its
// own target flags; one family is picked at load by CPU detection.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera {

struct Kernels {
  const char* name;
  float (*dot)(const float* a, const float* b, size_t n);
  float (*l2sq)(const float* a, const float* b, size_t n);
  // Scores q against `count` consecutive rows of n floats each; out[i] is the score of row i.
  // Sharing q's loads across rows and amortizing the call make short rows cheaper to scan.
  void (*dot_rows)(const float* q, const float* rows, size_t n, size_t count, float* out);
  void (*l2sq_rows)(const float* q, const float* rows, size_t n, size_t count, float* out);
  // The same for rows anywhere (rows[i] is row i), count a multiple of four (repeat the last row
  // to pad): each row is scored exactly as the kernels above score it within a call starting at a
  // multiple of four rows before it, so a sparse scan's scores never depend on what it skipped.
  void (*dot_rows_at)(const float* q, const float* const* rows, size_t n, size_t count, float* out);
  void (*l2sq_rows_at)(const float* q, const float* const* rows, size_t n, size_t count, float* out);

  // Exact dot of two int8 code vectors. Codes must lie in [-127, 127], never -128: the x86 kernels
  // multiply |a| (as unsigned) by b with a's sign, and -128 has no such |a| or negation. Exact
  // while n * 127^2 fits an int32 (n <= 133143).
  int32_t (*dot_i8)(const int8_t* a, const int8_t* b, size_t n);
  void (*dot_i8_rows)(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out);
  // Exact squared Euclidean distance of two code vectors whose values lie in [0, 127] (Euclidean
  // Int8 codes, on a grid), with no per-row norm to read: each |a - b| is at most 127, and is
  // multiplied by itself through the int8 dot's step.
  int32_t (*l2sq_u7)(const int8_t* a, const int8_t* b, size_t n);
  // Bit vectors of `words` 64-bit words: popcount(a XOR b), and popcount(a AND b) for estimators
  // that split the query into bit planes.
  uint32_t (*hamming)(const uint64_t* a, const uint64_t* b, size_t words);
  void (*hamming_rows)(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint32_t* out);
  uint32_t (*and_popcount)(const uint64_t* a, const uint64_t* b, size_t words);
  void (*and_popcount_rows)(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint32_t* out);
};

// Row-at-a-time fallbacks for families without a dedicated multi-row kernel; the element and
// score types are deduced from the pointer the instance is assigned to.
template <auto Fn, typename T, typename Score>
void RowsOneByOne(const T* q, const T* rows, size_t n, size_t count, Score* out) {
  for (size_t i = 0; i < count; ++i) out[i] = Fn(q, rows + i * n, n);
}
template <auto Fn, typename T, typename Score>
void RowsAtOneByOne(const T* q, const T* const* rows, size_t n, size_t count, Score* out) {
  for (size_t i = 0; i < count; ++i) out[i] = Fn(q, rows[i], n);
}

const Kernels& ScalarKernels();
#if defined(__x86_64__)
const Kernels& Avx2Kernels();
const Kernels& Avx512Kernels();
// AVX-512 with VNNI and VPOPCNTDQ (Ice Lake, Sapphire Rapids, Zen 4): the avx512 family's f32
// kernels, int8 dot by vpdpbusd and popcounts by vpopcntq.
const Kernels& Avx512IclKernels();
#endif
#if defined(__aarch64__)
const Kernels& NeonKernels();
// ARMv8.2 dot product (sdot): the neon family with int8 dot by sdot.
const Kernels& NeonDotprodKernels();
#endif

// Families this CPU can run, best first; the scalar family is always last.
std::vector<const Kernels*> SupportedKernels();

// The family in use: the best supported one, or the one named by TESSERA_KERNELS when that names
// a supported family (tests use it to force a lower path). Read once.
const Kernels& ActiveKernels();

}  // namespace tessera
