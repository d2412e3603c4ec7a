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
// A Uint8Array's bytes in place: valid only until the call returns.
std::string_view BytesView(const Napi::CallbackInfo& info, size_t i);

// A Uint8Array's bytes in place for a call that reads them on a core thread after it returns,
// kept from the garbage collector by a reference the JS thread deletes once the call settled
// (Completions). Not copied: a body of tens of megabytes copied on the JS thread held the event
// loop for hundreds of milliseconds on a VM, page faults mostly. As with fs.write, the caller
// leaves the bytes unchanged until the call settles.
struct HeldBytes {
  std::string_view bytes;
  napi_ref ref = nullptr;
};
HeldBytes HoldBytes(const Napi::CallbackInfo& info, size_t i);
// A Float32Array's values, copied.
std::vector<float> FloatsArg(const Napi::CallbackInfo& info, size_t i);
// A Float64Array's values, copied.
std::vector<double> DoublesArg(const Napi::CallbackInfo& info, size_t i);
// An optional CancelToken argument; a fresh never-cancelled token when absent.
std::shared_ptr<tessera::CancelToken> TokenArg(const Napi::CallbackInfo& info, size_t i);

}  // namespace tessera_addon
