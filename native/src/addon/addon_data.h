// Per-environment state of the addon: the constructors that core calls resolving to wrapped
// objects (a store, a records cursor, a rerank window) instantiate, and the queue reads finish through.
#pragma once
#include <napi.h>

#include "completions.h"
#include "tessera/prepared_read.h"

namespace tessera_addon {

struct AddonData {
  Napi::FunctionReference store_ctor;
  Napi::FunctionReference cursor_ctor;
  Napi::FunctionReference rerank_window_ctor;
  // Never freed: a query thread may still finish a read while the environment is torn down.
  Completions* completions = nullptr;
  // How costly a read may be and still run on this JS thread (inlineReads): a server with several
  // HTTP threads runs an indexed walk where it arrives (kSync); one thread hands it over (kHandoff).
  tessera::InlineBound read_bound = tessera::InlineBound::kHandoff;
};

}  // namespace tessera_addon
