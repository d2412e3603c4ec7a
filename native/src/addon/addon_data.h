// Per-environment state of the addon: the constructors that core calls resolving to wrapped
// objects (a store, a records cursor) instantiate.
#pragma once
#include <napi.h>

namespace tessera_addon {

struct AddonData {
  Napi::FunctionReference store_ctor;
  Napi::FunctionReference cursor_ctor;
};

}  // namespace tessera_addon
