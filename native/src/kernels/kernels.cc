#include "tessera/kernels.h"

#include <cstdlib>
#include <string_view>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace tessera {

std::vector<const Kernels*> SupportedKernels() {
  std::vector<const Kernels*> out;
#if defined(__x86_64__)
  __builtin_cpu_init();
  // The avx512 family borrows the avx2 family's popcounts, so it needs AVX2 too (every AVX-512
  // CPU has it).
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("popcnt");
  bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512vl");
  if (avx512 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vpopcntdq")) out.push_back(&Avx512IclKernels());
  if (avx512) out.push_back(&Avx512Kernels());
  if (avx2) out.push_back(&Avx2Kernels());
#endif
#if defined(__aarch64__)
#if defined(__linux__)
  if (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) out.push_back(&NeonDotprodKernels());
#endif
  out.push_back(&NeonKernels());
#endif
  out.push_back(&ScalarKernels());
  return out;
}

static const Kernels& Choose() {
  std::vector<const Kernels*> supported = SupportedKernels();
  if (const char* forced = std::getenv("TESSERA_KERNELS")) {
    for (const Kernels* k : supported)
      if (std::string_view(forced) == k->name) return *k;
  }
  return *supported.front();
}

const Kernels& ActiveKernels() {
  static const Kernels& active = Choose();
  return active;
}

}  // namespace tessera
