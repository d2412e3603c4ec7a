// A read route's call from JS: the body is parsed where it arrives when small, a read cheap enough
// runs there too (tessera/prepared_read.h bounds it), and the rest goes straight to the core's
// query threads (Completions), with no libuv hop.
#pragma once
#include <napi.h>

#include <memory>
#include <string_view>
#include <vector>

#include "tessera/store.h"

namespace tessera_addon {

// A promise of the read's JSON bytes (a Buffer) or of its Error. body is read before this returns.
Napi::Value StartRead(Napi::Env env, std::shared_ptr<tessera::Store> store, tessera::ReadRoute route, std::string_view body,
                      std::vector<float> query, std::shared_ptr<tessera::CancelToken> token);

}  // namespace tessera_addon
