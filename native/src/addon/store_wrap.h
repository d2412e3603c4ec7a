// NativeStore in JS: one method per core Store method, bound from a table. Each converts its
// arguments and resolves the core's JSON bytes: reads through StartRead (the core's own queue, or
// inline when cheap), every other call on an open store through StartCall (the store's blocking
// threads); open, check, close and records on a libuv worker (CoreTask).
#pragma once
#include <napi.h>

#include <memory>

#include "tessera/store.h"

namespace tessera_addon {

class StoreWrap : public Napi::ObjectWrap<StoreWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit StoreWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StoreWrap>(info) {}

 private:
  // open({path, inMemory, dimension, distance, queryThreads, mmap, readOnly, <index settings>})
  //   -> Promise<NativeStore>; the index settings are DescribeIndexSettings' names in camelCase
  //   (ann, m, efConstruction, ..., quantization, rescore), handed to the core as text.
  static Napi::Value Open(const Napi::CallbackInfo& info);
  // check(<open's options>) -> Promise<undefined>: Store::Check, refusing what open would, touching nothing.
  static Napi::Value Check(const Napi::CallbackInfo& info);
  // indexSettings() -> [{name, option, choices, min, max, needs, default}]: the core's table, for help.
  static Napi::Value IndexSettings(const Napi::CallbackInfo& info);
  // adopt(handle) -> NativeStore: the store another JS thread shared (share()), for this thread.
  static Napi::Value Adopt(const Napi::CallbackInfo& info);
  // share() -> handle: lets other JS threads of the process adopt this store until it closes.
  Napi::Value Share(const Napi::CallbackInfo& info);
  // drop(): this wrapper lets its core store go, unclosed (an adopted one another thread still
  // serves); calls in flight keep their own reference.
  Napi::Value Drop(const Napi::CallbackInfo& info);

  // Binds one core method by its signature: () | (name) | (version) | (name, body) | (body).
  template <auto Method>
  Napi::Value Call(const Napi::CallbackInfo& info);
  // A read route: (body, token?).
  template <tessera::ReadRoute Route>
  Napi::Value Read(const Napi::CallbackInfo& info);
  // searchVector(body, Float32Array, token?): /search with the query vector beside the body.
  Napi::Value SearchVector(const Napi::CallbackInfo& info);
  // searchSync(body, Float32Array?, arrays?): /search run on this thread when its estimate is
  // bounded (RunSyncRead): its bytes (with arrays, {collections, ids, scores}), or null.
  Napi::Value SearchSync(const Napi::CallbackInfo& info);
  Napi::Value Records(const Napi::CallbackInfo& info);
  // rerankWindow(route, body, token?) -> Promise<RerankWindow>: phase one of a reranked read, route
  // 'search', 'textSearch' or 'hybridSearch'.
  Napi::Value RerankWindow(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  // Synchronous reads of memory the core keeps current: they never wait on a store lock.
  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Poisoned(const Napi::CallbackInfo& info);
  Napi::Value CommitVersion(const Napi::CallbackInfo& info);
  Napi::Value Pinned(const Napi::CallbackInfo& info);
  // The Error a write would fail with now (Store::CheckWritable), or null when the store writes.
  Napi::Value WriteRefusal(const Napi::CallbackInfo& info);
  Napi::Value Footprint(const Napi::CallbackInfo& info);
  Napi::Value InjectWriteFault(const Napi::CallbackInfo& info);
  Napi::Value InjectCompactionFault(const Napi::CallbackInfo& info);

  tessera::Store& store(Napi::Env env);
  std::shared_ptr<tessera::Store> shared(Napi::Env env);

  std::shared_ptr<tessera::Store> store_;
};

}  // namespace tessera_addon
