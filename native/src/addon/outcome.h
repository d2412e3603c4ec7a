// Outcome: what one core call ended with, caught whole on the thread that ran it (its bytes, or
// the error it threw as the spec's HTTP status), so no C++ exception ever crosses into JS.
#pragma once
#include <napi.h>

#include <string>
#include <vector>

namespace tessera_addon {

struct Outcome {
  std::string bytes;
  bool failed = false;
  int status = 0;
  std::string message;
  std::string setting, problem;           // set for a tessera::SettingError
  std::vector<std::string> not_resident;  // set for a tessera::NotResidentError

  // Runs work, catching every exception it throws.
  template <typename Work>
  static Outcome Of(Work&& work) noexcept {
    Outcome out;
    try {
      out.bytes = work();
    } catch (...) {
      out.Fail();
    }
    return out;
  }

  // The Error a failed call rejects with: `status`, for a refused open setting `setting` and
  // `problem`, and for collections a lazy reader does not hold `notResident` (their names).
  Napi::Value ErrorValue(Napi::Env env) const;
  // Resolves deferred with a Buffer of the bytes, or rejects it with ErrorValue. JS thread. A
  // large answer's bytes move into the Buffer instead of being copied, so bytes is left empty.
  void Settle(Napi::Env env, napi_deferred deferred);
  // What a call that ran on the JS thread answers there: the Buffer of its bytes itself (no
  // promise to settle, no later turn of the event loop to deliver it), or a promise rejected with
  // ErrorValue, so that a caller meets every failure the same way.
  Napi::Value Answer(Napi::Env env);

 private:
  // Records the exception being handled.
  void Fail() noexcept;
};

}  // namespace tessera_addon
