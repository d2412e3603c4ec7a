#include "records_cursor_wrap.h"

#include "core_task.h"

namespace tessera_addon {

Napi::Function RecordsCursorWrap::Define(Napi::Env env) {
  return DefineClass(env, "RecordsCursor",
                     {InstanceMethod<&RecordsCursorWrap::Next>("next"), InstanceMethod<&RecordsCursorWrap::Close>("close")});
}

void RecordsCursorWrap::Attach(std::shared_ptr<tessera::Store> store, std::unique_ptr<tessera::RecordsCursor> cursor) {
  store_ = std::move(store);
  cursor_ = std::move(cursor);
}

Napi::Value RecordsCursorWrap::Close(const Napi::CallbackInfo& info) {
  cursor_.reset();
  store_.reset();
  return info.Env().Undefined();
}

Napi::Value RecordsCursorWrap::Next(const Napi::CallbackInfo& info) {
  if (!cursor_) throw Napi::Error::New(info.Env(), "the records cursor is closed");
  size_t max_bytes = info.Length() > 0 && info[0].IsNumber() ? size_t(info[0].As<Napi::Number>().Int64Value()) : 1 << 20;
  auto done = std::make_shared<bool>(false);
  return CoreTask::Run(
      info.Env(),
      [cursor = cursor_, store = store_, max_bytes, done] {
        std::string piece;
        *done = !cursor->Next(max_bytes, &piece);
        return piece;
      },
      [done](Napi::Env env, std::string& bytes) -> Napi::Value {
        if (*done) return env.Null();
        return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
      });
}

}  // namespace tessera_addon
