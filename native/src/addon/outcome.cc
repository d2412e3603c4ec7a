#include "outcome.h"

#include <exception>
#include <new>

#include "tessera/error.h"

namespace tessera_addon {

namespace {

// A JS Error carrying the spec's HTTP status.
Napi::Error StatusError(Napi::Env env, int status, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("status", Napi::Number::New(env, status));
  return e;
}

}  // namespace

void Outcome::Fail() noexcept {
  failed = true;
  try {
    throw;
  } catch (const tessera::SettingError& e) {
    status = int(e.status());
    message = e.what();
    setting = e.setting();
    problem = e.problem();
  } catch (const tessera::NotResidentError& e) {
    status = int(e.status());
    message = e.what();
    not_resident = e.collections();
  } catch (const tessera::Error& e) {
    status = int(e.status());
    message = e.what();
  } catch (const std::bad_alloc&) {
    status = int(tessera::Status::kInsufficientStorage);
    message = "out of memory";
  } catch (const std::exception& e) {
    status = int(tessera::Status::kInternal);
    message = e.what();
  } catch (...) {
    status = int(tessera::Status::kInternal);
    message = "unknown failure in the core";
  }
}

Napi::Value Outcome::ErrorValue(Napi::Env env) const {
  Napi::Error e = StatusError(env, status, message);
  if (!setting.empty()) {
    e.Set("setting", setting);
    e.Set("problem", problem);
  }
  if (!not_resident.empty()) {
    Napi::Array names = Napi::Array::New(env, not_resident.size());
    for (size_t i = 0; i < not_resident.size(); ++i) names.Set(uint32_t(i), not_resident[i]);
    e.Set("notResident", names);
  }
  return e.Value();
}

namespace {

// From this size an answer's bytes are handed to its Buffer rather than copied: a copy of
// megabytes costs the JS thread a page fault per 4 KiB, a handed-over string only a finalizer.
constexpr size_t kHandOverMinBytes = 64 * 1024;

Napi::Buffer<char> AnswerBuffer(Napi::Env env, std::string& bytes) {
  if (bytes.size() < kHandOverMinBytes) return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
  auto* owned = new std::string(std::move(bytes));
  return Napi::Buffer<char>::New(
      env, owned->data(), owned->size(), [](Napi::Env, char*, std::string* s) { delete s; }, owned);
}

}  // namespace

void Outcome::Settle(Napi::Env env, napi_deferred deferred) {
  Napi::HandleScope scope(env);
  try {
    if (failed)
      napi_reject_deferred(env, deferred, ErrorValue(env));
    else
      napi_resolve_deferred(env, deferred, AnswerBuffer(env, bytes));
  } catch (const Napi::Error& e) {
    napi_reject_deferred(env, deferred, e.Value());
  }
}

Napi::Value Outcome::Answer(Napi::Env env) {
  if (!failed) return AnswerBuffer(env, bytes);
  napi_deferred deferred;
  napi_value promise;
  NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &deferred, &promise), Napi::Value());
  Settle(env, deferred);
  return Napi::Value(env, promise);
}

}  // namespace tessera_addon
