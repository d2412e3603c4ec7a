// Runs one core call on a libuv worker and settles a promise with its bytes (a Buffer), or with
// the Error of its Outcome. Used where there is no store (yet) to own a queue: open and check,
// and for close and the records cursor; every other call goes through the core's own queues
// (read_call.h).
#pragma once
#include <napi.h>

#include <functional>
#include <string>

#include "outcome.h"

namespace tessera_addon {

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

  Napi::Promise::Deferred deferred_;
  Work work_;
  Finish finish_;
  Outcome outcome_;
};

}  // namespace tessera_addon
