#include "cancel_token_wrap.h"

namespace tessera_addon {

Napi::Function CancelTokenWrap::Define(Napi::Env env) {
  return DefineClass(env, "CancelToken", {InstanceMethod<&CancelTokenWrap::Cancel>("cancel")});
}

CancelTokenWrap::CancelTokenWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<CancelTokenWrap>(info), token_(std::make_shared<tessera::CancelToken>()) {}

Napi::Value CancelTokenWrap::Cancel(const Napi::CallbackInfo& info) {
  token_->Cancel();
  return info.Env().Undefined();
}

}  // namespace tessera_addon
