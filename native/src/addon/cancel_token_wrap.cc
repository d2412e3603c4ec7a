#include "cancel_token_wrap.h"

namespace tessera_addon {

Napi::Function CancelTokenWrap::Define(Napi::Env env) {
  return DefineClass(env, "CancelToken",
                     {InstanceMethod<&CancelTokenWrap::Cancel>("cancel"), InstanceMethod<&CancelTokenWrap::PlanSummary>("planSummary"),
                      InstanceMethod<&CancelTokenWrap::ClearPlanSummary>("clearPlanSummary")});
}

CancelTokenWrap::CancelTokenWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<CancelTokenWrap>(info), token_(std::make_shared<tessera::CancelToken>()) {}

Napi::Value CancelTokenWrap::Cancel(const Napi::CallbackInfo& info) {
  token_->Cancel();
  return info.Env().Undefined();
}

Napi::Value CancelTokenWrap::PlanSummary(const Napi::CallbackInfo& info) {
  std::string summary = token_->plan_summary();
  if (summary.empty()) return info.Env().Null();
  return Napi::String::New(info.Env(), summary);
}

Napi::Value CancelTokenWrap::ClearPlanSummary(const Napi::CallbackInfo& info) {
  token_->clear_plan_summary();
  return info.Env().Undefined();
}

}  // namespace tessera_addon
