// RecordsCursor in JS: next(maxBytes) resolves the next piece of the records array (null once it
// is complete); close() releases the snapshot it pins.
#pragma once
#include <napi.h>

#include <memory>

#include "tessera/store.h"

namespace tessera_addon {

class RecordsCursorWrap : public Napi::ObjectWrap<RecordsCursorWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit RecordsCursorWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RecordsCursorWrap>(info) {}
  // The cursor keeps its store alive: a cursor may outlive the store handle in JS.
  void Attach(std::shared_ptr<tessera::Store> store, std::unique_ptr<tessera::RecordsCursor> cursor);

 private:
  Napi::Value Next(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  std::shared_ptr<tessera::Store> store_;
  std::shared_ptr<tessera::RecordsCursor> cursor_;
};

}  // namespace tessera_addon
