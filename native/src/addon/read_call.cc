#include "read_call.h"

#include "addon_data.h"
#include "completions.h"
#include "outcome.h"

namespace tessera_addon {

namespace {

// A body up to this size is parsed on the JS thread (a few microseconds with simdjson); a larger
// one is parsed on a query thread.
constexpr size_t kParseInlineMaxBytes = 16 * 1024;

// {collections, ids, scores}: the page's hits as parallel arrays, a collection's name made once.
// Elements are set as Napi::Value: Set's template takes a Napi::String for text (it converts to
// std::string) and makes a new string of it, a round trip per element.
Napi::Object HitArrays(Napi::Env env, const tessera::HitList& hits) {
  size_t n = hits.ids.size();
  Napi::Array collections = Napi::Array::New(env, n), ids = Napi::Array::New(env, n);
  Napi::Float32Array scores = Napi::Float32Array::New(env, n);
  Napi::String collection;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || hits.collections[i] != hits.collections[i - 1])
      collection = Napi::String::New(env, hits.collections[i].data(), hits.collections[i].size());
    collections.Set(uint32_t(i), Napi::Value(collection));
    ids.Set(uint32_t(i), Napi::Value(Napi::String::New(env, hits.ids[i].data(), hits.ids[i].size())));
    scores[i] = hits.scores[i];
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("collections", collections);
  out.Set("ids", ids);
  out.Set("scores", scores);
  return out;
}

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
          return s.Prepare(route, body, floats ? &query : nullptr, tessera::InlineBound::kNone)->Run(*token);
        },
        Completions::Lane::kRead, held.ref);
    return Napi::Value(env, promise);
  }
  std::unique_ptr<tessera::PreparedRead> read;
  Outcome prepared = Outcome::Of([&] {
    read = s.Prepare(route, body, floats ? &query : nullptr, env.GetInstanceData<AddonData>()->read_bound);
    return std::string();
  });
  if (prepared.failed) return prepared.Answer(env);
  if (read->runs_inline()) return Outcome::Of([&] { return read->Run(*token); }).Answer(env);
  NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &deferred, &promise), Napi::Value());
  completions.Submit(std::move(store), deferred,
                     [read = std::shared_ptr<tessera::PreparedRead>(std::move(read)), token] { return read->Run(*token); });
  return Napi::Value(env, promise);
}

Napi::Value RunSyncRead(const Napi::CallbackInfo& info, tessera::Store& store, tessera::ReadRoute route, size_t body_arg,
                        std::vector<float> query, bool arrays) {
  static const tessera::CancelToken kNeverCancelled;
  Napi::Env env = info.Env();
  std::string_view body = BytesView(info, body_arg);
  bool floats = route == tessera::ReadRoute::kSearch && !query.empty();
  std::unique_ptr<tessera::PreparedRead> read;  // holds the snapshot hits' views point into
  tessera::HitList hits;
  bool ran = false;
  Outcome outcome = Outcome::Of([&] {
    read = store.Prepare(route, body, floats ? &query : nullptr, tessera::InlineBound::kSync);
    if (!read->runs_inline()) return std::string();
    ran = true;
    if (!arrays) return read->Run(kNeverCancelled);
    hits = read->RunHits(kNeverCancelled);
    return std::string();
  });
  if (outcome.failed) throw Napi::Error(env, outcome.ErrorValue(env));
  if (!ran) return env.Null();
  return arrays ? HitArrays(env, hits) : outcome.Answer(env);
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
