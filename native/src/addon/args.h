// Reading JS arguments into C++ values; a wrong type is a TypeError naming the argument.
#pragma once
#include <napi.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/cancel.h"

namespace tessera_addon {

std::string StringArg(const Napi::CallbackInfo& info, size_t i);
// An array of strings, or nullopt for null and undefined; what names the value in the TypeError.
std::optional<std::vector<std::string>> OptionalStrings(Napi::Env env, Napi::Value v, const std::string& what);
// A Uint8Array's bytes, copied: the core reads them on a worker thread after the call returns.
std::string BytesArg(const Napi::CallbackInfo& info, size_t i);
// A Uint8Array's bytes in place: valid only until the call returns.
std::string_view BytesView(const Napi::CallbackInfo& info, size_t i);
// A Float32Array's values, copied.
std::vector<float> FloatsArg(const Napi::CallbackInfo& info, size_t i);
// An optional CancelToken argument; a fresh never-cancelled token when absent.
std::shared_ptr<tessera::CancelToken> TokenArg(const Napi::CallbackInfo& info, size_t i);

}  // namespace tessera_addon
