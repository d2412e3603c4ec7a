#include "tessera/kernels.h"

#include <cstdlib>
#include <string_view>

namespace tessera {

std::vector<const Kernels*> SupportedKernels() {
  std::vector<const Kernels*> out;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    out.push_back(&Avx512Kernels());
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.push_back(&Avx2Kernels());
#endif
#if defined(__aarch64__)
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
