#include "read_call.h"

#include "addon_data.h"
#include "completions.h"
#include "outcome.h"

namespace tessera_addon {

namespace {

// A body up to this size is parsed on the JS thread (a few microseconds with simdjson); a larger
// one is parsed on a query thread.
constexpr size_t kParseInlineMaxBytes = 16 * 1024;

}  // namespace

Napi::Value StartRead(const Napi::CallbackInfo& info, std::shared_ptr<tessera::Store> store, tessera::ReadRoute route, size_t body_arg,
                      std::vector<float> query, std::shared_ptr<tessera::CancelToken> token) {
  Napi::Env env = info.Env();
  std::string_view body = BytesView(info, body_arg);
  Completions& completions = *env.GetInstanceData<AddonData>()->completions;
  tessera::Store& s = *store;
  bool floats = route == tessera::ReadRoute::kSearch && !query.empty();
  napi_deferred deferred;
  napi_value promise;
  if (body.size() > kParseInlineMaxBytes) {
    HeldBytes held = HoldBytes(info, body_arg);
    NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &deferred, &promise), Napi::Value());
    completions.Submit(
        std::move(store), deferred,
        [&s, route, body = held.bytes, query = std::move(query), floats, token] {
          return s.Prepare(route, body, floats ? &query : nullptr, false)->Run(*token);
        },
        Completions::Lane::kRead, held.ref);
    return Napi::Value(env, promise);
  }
  std::unique_ptr<tessera::PreparedRead> read;
  Outcome prepared = Outcome::Of([&] {
    read = s.Prepare(route, body, floats ? &query : nullptr);
    return std::string();
  });
  if (prepared.failed) return prepared.Answer(env);
  if (read->runs_inline()) return Outcome::Of([&] { return read->Run(*token); }).Answer(env);
  NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &deferred, &promise), Napi::Value());
  completions.Submit(std::move(store), deferred,
                     [read = std::shared_ptr<tessera::PreparedRead>(std::move(read)), token] { return read->Run(*token); });
  return Napi::Value(env, promise);
}

Napi::Value StartCall(Napi::Env env, std::shared_ptr<tessera::Store> store, std::function<std::string()> work, HeldBytes held) {
  napi_deferred deferred;
  napi_value promise;
  NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &deferred, &promise), Napi::Value());
  env.GetInstanceData<AddonData>()->completions->Submit(std::move(store), deferred, std::move(work), Completions::Lane::kBlocking,
                                                        held.ref);
  return Napi::Value(env, promise);
}

}  // namespace tessera_addon
