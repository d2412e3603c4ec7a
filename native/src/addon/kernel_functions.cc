#include "kernel_functions.h"

#include <vector>

#include "args.h"
#include "tessera/kernels.h"

namespace tessera_addon {
namespace {

Napi::Value SupportedKernels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto all = tessera::SupportedKernels();
  Napi::Array out = Napi::Array::New(env, all.size());
  for (size_t i = 0; i < all.size(); ++i) out.Set(uint32_t(i), all[i]->name);
  return out;
}

Napi::Value ActiveKernels(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), tessera::ActiveKernels().name); }

// runKernel(family, op, a, b): 'dot' | 'l2sq' score a against b; 'dot_rows' | 'l2sq_rows'
// score a against each a.length-sized row of b and return the scores; 'dot_rows_at' |
// 'l2sq_rows_at' the same through rows_at, given b's rows last first (the scores in that order).
Napi::Value RunKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string family = StringArg(info, 0), op = StringArg(info, 1);
  if (info.Length() < 4 || !info[2].IsTypedArray() || !info[3].IsTypedArray())
    throw Napi::TypeError::New(env, "runKernel(family, op, a, b) takes two Float32Arrays");
  auto a = info[2].As<Napi::Float32Array>(), b = info[3].As<Napi::Float32Array>();
  size_t n = a.ElementLength();
  bool at = op == "dot_rows_at" || op == "l2sq_rows_at", dot = op == "dot_rows" || op == "dot_rows_at";
  bool rows = at || op == "dot_rows" || op == "l2sq_rows";
  if (rows ? (n == 0 || b.ElementLength() % n != 0) : b.ElementLength() != n)
    throw Napi::RangeError::New(env, "vector lengths do not fit the op");
  for (const tessera::Kernels* k : tessera::SupportedKernels()) {
    if (family != k->name) continue;
    if (!rows) return Napi::Number::New(env, op == "dot" ? k->dot(a.Data(), b.Data(), n) : k->l2sq(a.Data(), b.Data(), n));
    size_t count = b.ElementLength() / n;
    Napi::Float32Array out = Napi::Float32Array::New(env, count);
    if (at) {
      std::vector<const float*> reversed(count);
      for (size_t i = 0; i < count; ++i) reversed[i] = b.Data() + (count - 1 - i) * n;
      (dot ? k->dot_rows_at : k->l2sq_rows_at)(a.Data(), reversed.data(), n, count, out.Data());
    } else {
      (dot ? k->dot_rows : k->l2sq_rows)(a.Data(), b.Data(), n, count, out.Data());
    }
    return out;
  }
  throw Napi::Error::New(env, "kernel family " + family + " does not run on this CPU");
}

}  // namespace

void ExportKernelFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("supportedKernels", Napi::Function::New(env, SupportedKernels));
  exports.Set("activeKernels", Napi::Function::New(env, ActiveKernels));
  exports.Set("runKernel", Napi::Function::New(env, RunKernel));
}

}  // namespace tessera_addon
