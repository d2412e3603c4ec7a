// A store call from JS, straight into the core's own queues (Completions), with no libuv hop. A
// read's body is parsed where it arrives when small, and a read cheap enough runs there too
// (tessera/prepared_read.h bounds it); other reads go to the query threads, and every call that
// may wait on the disk (writes, flush, compaction, metadata) to the store's blocking threads.
#pragma once
#include <napi.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "tessera/store.h"

namespace tessera_addon {

// The read's JSON bytes (a Buffer) when it ran here, else a promise of them; a failure is always
// a promise rejected with its Error. body (argument body_arg of info) is parsed where it arrives
// when small; a larger one is held (HeldBytes) for the query thread that parses it.
Napi::Value StartRead(const Napi::CallbackInfo& info, std::shared_ptr<tessera::Store> store, tessera::ReadRoute route, size_t body_arg,
                      std::vector<float> query, std::shared_ptr<tessera::CancelToken> token);

// A read run here and now when its estimate allows a synchronous caller (InlineBound::kSync): its
// JSON bytes (a Buffer), or with arrays its page as {collections, ids, scores} (PreparedRead::
// RunHits); null when it would cost more and belongs on the query threads (StartRead). A failure
// throws its Error.
Napi::Value RunSyncRead(const Napi::CallbackInfo& info, tessera::Store& store, tessera::ReadRoute route, size_t body_arg,
                        std::vector<float> query, bool arrays);

// A promise of work's bytes (a Buffer) or of its Error; work runs on store's blocking threads.
// held.ref (when set) keeps the bytes work reads alive until the call settled.
Napi::Value StartCall(Napi::Env env, std::shared_ptr<tessera::Store> store, std::function<std::string()> work, HeldBytes held = {});

}  // namespace tessera_addon
