// Distance kernels. Each SIMD family lives in its own translation unit compiled with only its
// own target flags; one family is picked at load by CPU detection.
#pragma once
#include <cstddef>
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
};

// Row-at-a-time fallbacks for families without a dedicated multi-row kernel.
template <float (*Fn)(const float*, const float*, size_t)>
void RowsOneByOne(const float* q, const float* rows, size_t n, size_t count, float* out) {
  for (size_t i = 0; i < count; ++i) out[i] = Fn(q, rows + i * n, n);
}

const Kernels& ScalarKernels();
#if defined(__x86_64__)
const Kernels& Avx2Kernels();
const Kernels& Avx512Kernels();
#endif
#if defined(__aarch64__)
const Kernels& NeonKernels();
#endif

// Families this CPU can run, best first; the scalar family is always last.
std::vector<const Kernels*> SupportedKernels();

// The family in use: the best supported one, or the one named by TESSERA_KERNELS when that names
// a supported family (tests use it to force a lower path). Read once.
const Kernels& ActiveKernels();

}  // namespace tessera
