// Per-environment state of the addon: the constructors that core calls resolving to wrapped
// objects (a store, a records cursor, a rerank window) instantiate, and the queue reads finish through.
#pragma once
#include <napi.h>

#include "completions.h"

namespace tessera_addon {

struct AddonData {
  Napi::FunctionReference store_ctor;
  Napi::FunctionReference cursor_ctor;
  Napi::FunctionReference rerank_window_ctor;
  // Never freed: a query thread may still finish a read while the environment is torn down.
  Completions* completions = nullptr;
};

}  // namespace tessera_addon
