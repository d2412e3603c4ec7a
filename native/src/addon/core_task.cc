#include "core_task.h"

namespace tessera_addon {

Napi::Promise CoreTask::Run(Napi::Env env, Work work, Finish finish) {
  auto* task = new CoreTask(env, std::move(work), std::move(finish));
  Napi::Promise promise = task->deferred_.Promise();
  task->Queue();
  return promise;
}

CoreTask::CoreTask(Napi::Env env, Work work, Finish finish)
    : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)), finish_(std::move(finish)) {}

void CoreTask::Execute() { outcome_ = Outcome::Of(work_); }

void CoreTask::OnOK() {
  Napi::Env env = Env();
  if (outcome_.failed) {
    deferred_.Reject(outcome_.ErrorValue(env));
    return;
  }
  try {
    deferred_.Resolve(finish_ ? finish_(env, outcome_.bytes) : Napi::Buffer<char>::Copy(env, outcome_.bytes.data(), outcome_.bytes.size()));
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
}

}  // namespace tessera_addon
