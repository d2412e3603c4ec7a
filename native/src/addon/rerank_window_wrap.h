// RerankWindow in JS: reranks, query and texts (phase one's answer), finish(Float64Array of scores, token?)
// resolving the hits' bytes, close() releasing the snapshot it pins.
#pragma once
#include <napi.h>

#include <memory>

#include "tessera/store.h"

namespace tessera_addon {

class RerankWindowWrap : public Napi::ObjectWrap<RerankWindowWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit RerankWindowWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RerankWindowWrap>(info) {}
  // The window keeps its store alive: it may outlive the store handle in JS.
  void Attach(std::shared_ptr<tessera::Store> store, std::unique_ptr<tessera::RerankWindow> window);

 private:
  Napi::Value Reranks(const Napi::CallbackInfo& info);
  Napi::Value Query(const Napi::CallbackInfo& info);
  Napi::Value Texts(const Napi::CallbackInfo& info);
  Napi::Value Finish(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  tessera::RerankWindow& window(Napi::Env env);

  std::shared_ptr<tessera::Store> store_;
  std::shared_ptr<tessera::RerankWindow> window_;
};

}  // namespace tessera_addon
