// The N-API binding's entry point: registers the wrapped classes, the kernel and the file functions. The
// binding converts arguments and dispatches; no store logic lives in addon/.
#include <napi.h>

#include "addon_data.h"
#include "cancel_token_wrap.h"
#include "file_functions.h"
#include "kernel_functions.h"
#include "records_cursor_wrap.h"
#include "rerank_window_wrap.h"
#include "store_wrap.h"
#include "tessera/json_syntax.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new tessera_addon::AddonData();
  Napi::Function store = tessera_addon::StoreWrap::Define(env);
  Napi::Function cursor = tessera_addon::RecordsCursorWrap::Define(env);
  data->store_ctor = Napi::Persistent(store);
  data->cursor_ctor = Napi::Persistent(cursor);
  data->rerank_window_ctor = Napi::Persistent(tessera_addon::RerankWindowWrap::Define(env));
  data->completions = new tessera_addon::Completions(env);
  env.SetInstanceData(data);
  exports.Set("NativeStore", store);
  exports.Set("CancelToken", tessera_addon::CancelTokenWrap::Define(env));
  tessera_addon::ExportKernelFunctions(env, exports);
  tessera_addon::ExportFileFunctions(env, exports);
  // The JS thread calls it on each turn while it polls for a core read (lib/store/core_wait.ts).
  exports.Set("pollCompletions", Napi::Function::New(env, [data](const Napi::CallbackInfo& info) {
                data->completions->Poll(info.Env(), info[0].ToBoolean());
              }));
  exports.Set("scheduleWith", Napi::Function::New(env, [data](const Napi::CallbackInfo& info) {
                data->completions->ScheduleWith(info[0].As<Napi::Function>());
              }));
  // A read that ran inline leaves none: then there is nothing to poll for.
  exports.Set("beginPolling", Napi::Function::New(env, [data](const Napi::CallbackInfo& info) {
                return Napi::Number::New(info.Env(), double(data->completions->BeginPolling()));
              }));
  // inlineReads('sync' | 'handoff'): the reads this thread runs itself (AddonData::read_bound).
  exports.Set("inlineReads", Napi::Function::New(env, [data](const Napi::CallbackInfo& info) {
                data->read_bound =
                    info[0].As<Napi::String>().Utf8Value() == "sync" ? tessera::InlineBound::kSync : tessera::InlineBound::kHandoff;
              }));
  // The 400 message of a body JSON.parse refused (lib/json_syntax.ts): where it breaks, or null.
  exports.Set("jsonSyntaxError", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                std::string text = info[0].As<Napi::String>().Utf8Value();
                std::optional<tessera::JsonSyntaxError> where = tessera::FindJsonSyntaxError(text);
                return where ? Napi::String::New(info.Env(), tessera::Describe(*where)) : info.Env().Null();
              }));
  return exports;
}

}  // namespace

NODE_API_MODULE(tessera, Init)
