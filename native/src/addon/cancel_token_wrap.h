// CancelToken in JS: cancel() stops the core calls the token was passed to; planSummary() is the
// short plan the last vector query under it left (clearPlanSummary() forgets it, for reuse).
#pragma once
#include <napi.h>

#include <memory>

#include "tessera/cancel.h"

namespace tessera_addon {

class CancelTokenWrap : public Napi::ObjectWrap<CancelTokenWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit CancelTokenWrap(const Napi::CallbackInfo& info);
  std::shared_ptr<tessera::CancelToken> token() const { return token_; }

 private:
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value PlanSummary(const Napi::CallbackInfo& info);
  Napi::Value ClearPlanSummary(const Napi::CallbackInfo& info);
  std::shared_ptr<tessera::CancelToken> token_;
};

}  // namespace tessera_addon
