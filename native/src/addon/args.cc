#include "args.h"

#include "cancel_token_wrap.h"

namespace tessera_addon {

std::string StringArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsString())
    throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a string");
  return info[i].As<Napi::String>().Utf8Value();
}

std::optional<std::vector<std::string>> OptionalStrings(Napi::Env env, Napi::Value v, const std::string& what) {
  if (v.IsNull() || v.IsUndefined()) return std::nullopt;
  if (!v.IsArray()) throw Napi::TypeError::New(env, what + " must be an array of strings or null");
  Napi::Array array = v.As<Napi::Array>();
  std::vector<std::string> out;
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsString()) throw Napi::TypeError::New(env, what + " must be an array of strings or null");
    out.push_back(item.As<Napi::String>().Utf8Value());
  }
  return out;
}

std::string_view BytesView(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsTypedArray())
    throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a Uint8Array");
  auto bytes = info[i].As<Napi::Uint8Array>();
  return std::string_view(reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength());
}

HeldBytes HoldBytes(const Napi::CallbackInfo& info, size_t i) {
  HeldBytes held{BytesView(info, i)};
  NAPI_THROW_IF_FAILED(info.Env(), napi_create_reference(info.Env(), info[i], 1, &held.ref), held);
  return held;
}

std::vector<float> FloatsArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a Float32Array");
  auto floats = info[i].As<Napi::Float32Array>();
  return std::vector<float>(floats.Data(), floats.Data() + floats.ElementLength());
}

std::vector<double> DoublesArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsTypedArray() || info[i].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a Float64Array");
  auto doubles = info[i].As<Napi::Float64Array>();
  return std::vector<double>(doubles.Data(), doubles.Data() + doubles.ElementLength());
}

std::shared_ptr<tessera::CancelToken> TokenArg(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() > i && info[i].IsObject()) return CancelTokenWrap::Unwrap(info[i].As<Napi::Object>())->token();
  return std::make_shared<tessera::CancelToken>();
}

}  // namespace tessera_addon
