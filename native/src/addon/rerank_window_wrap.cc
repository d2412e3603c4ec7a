#include "rerank_window_wrap.h"

#include "args.h"
#include "core_task.h"

namespace tessera_addon {

Napi::Function RerankWindowWrap::Define(Napi::Env env) {
  return DefineClass(env, "RerankWindow",
                     {InstanceMethod<&RerankWindowWrap::Reranks>("reranks"), InstanceMethod<&RerankWindowWrap::Query>("query"),
                      InstanceMethod<&RerankWindowWrap::Texts>("texts"), InstanceMethod<&RerankWindowWrap::Finish>("finish"),
                      InstanceMethod<&RerankWindowWrap::Close>("close")});
}

void RerankWindowWrap::Attach(std::shared_ptr<tessera::Store> store, std::unique_ptr<tessera::RerankWindow> window) {
  store_ = std::move(store);
  window_ = std::move(window);
}

tessera::RerankWindow& RerankWindowWrap::window(Napi::Env env) {
  if (!window_) throw Napi::Error::New(env, "the rerank window is closed");
  return *window_;
}

Napi::Value RerankWindowWrap::Reranks(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), window(info.Env()).reranks());
}

Napi::Value RerankWindowWrap::Query(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), window(info.Env()).query()); }

Napi::Value RerankWindowWrap::Texts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto& texts = window(env).texts();
  Napi::Array out = Napi::Array::New(env, texts.size());
  for (uint32_t i = 0; i < texts.size(); ++i) out.Set(i, texts[i] ? Napi::Value(Napi::String::New(env, *texts[i])) : env.Null());
  return out;
}

Napi::Value RerankWindowWrap::Finish(const Napi::CallbackInfo& info) {
  window(info.Env());
  return CoreTask::Run(info.Env(), [window = window_, store = store_, scores = DoublesArg(info, 0), token = TokenArg(info, 1)] {
    return window->Finish(scores, *token);
  });
}

Napi::Value RerankWindowWrap::Close(const Napi::CallbackInfo& info) {
  window_.reset();
  store_.reset();
  return info.Env().Undefined();
}

}  // namespace tessera_addon
