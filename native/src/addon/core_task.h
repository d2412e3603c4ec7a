// Runs one core call on a libuv worker and settles a promise with its bytes (a Buffer), or with
// an Error whose `status` is the spec's HTTP status (and, for a refused open setting, `setting` and
// `problem`: tessera::SettingError's parts). C++ exceptions never cross into JS.
#pragma once
#include <napi.h>

#include <functional>
#include <string>

namespace tessera_addon {

// A JS Error carrying the spec's HTTP status.
Napi::Error StatusError(Napi::Env env, int status, const std::string& message);

class CoreTask : public Napi::AsyncWorker {
 public:
  using Work = std::function<std::string()>;
  // Turns the work's bytes into the promise's value (default: a Buffer of them).
  using Finish = std::function<Napi::Value(Napi::Env, std::string&)>;

  static Napi::Promise Run(Napi::Env env, Work work, Finish finish = nullptr);

 private:
  CoreTask(Napi::Env env, Work work, Finish finish);
  void Execute() override;
  void OnOK() override;
  void Fail(int status, const std::string& message);

  Napi::Promise::Deferred deferred_;
  Work work_;
  Finish finish_;
  std::string result_;
  bool failed_ = false;
  int status_ = 0;
  std::string message_;
  std::string setting_, problem_;  // set for a SettingError
};

}  // namespace tessera_addon
