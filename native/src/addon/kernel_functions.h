// The SIMD kernel families as JS functions, so tests compare every family the CPU runs against
// the scalar one: supportedKernels(), activeKernels(), runKernel(family, op, a, b).
#pragma once
#include <napi.h>

namespace tessera_addon {

void ExportKernelFunctions(Napi::Env env, Napi::Object exports);

}  // namespace tessera_addon
