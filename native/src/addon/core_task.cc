#include "core_task.h"

#include "tessera/error.h"

namespace tessera_addon {

Napi::Error StatusError(Napi::Env env, int status, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("status", Napi::Number::New(env, status));
  return e;
}

Napi::Promise CoreTask::Run(Napi::Env env, Work work, Finish finish) {
  auto* task = new CoreTask(env, std::move(work), std::move(finish));
  Napi::Promise promise = task->deferred_.Promise();
  task->Queue();
  return promise;
}

CoreTask::CoreTask(Napi::Env env, Work work, Finish finish)
    : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)), finish_(std::move(finish)) {}

void CoreTask::Execute() {
  try {
    result_ = work_();
  } catch (const tessera::SettingError& e) {
    Fail(int(e.status()), e.what());
    setting_ = e.setting();
    problem_ = e.problem();
  } catch (const tessera::Error& e) {
    Fail(int(e.status()), e.what());
  } catch (const std::bad_alloc&) {
    Fail(int(tessera::Status::kInsufficientStorage), "out of memory");
  } catch (const std::exception& e) {
    Fail(int(tessera::Status::kInternal), e.what());
  }
}

void CoreTask::OnOK() {
  Napi::Env env = Env();
  if (failed_) {
    Napi::Error e = StatusError(env, status_, message_);
    if (!setting_.empty()) {
      e.Set("setting", setting_);
      e.Set("problem", problem_);
    }
    deferred_.Reject(e.Value());
    return;
  }
  try {
    deferred_.Resolve(finish_ ? finish_(env, result_) : Napi::Buffer<char>::Copy(env, result_.data(), result_.size()));
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
}

void CoreTask::Fail(int status, const std::string& message) {
  failed_ = true;
  status_ = status;
  message_ = message;
}

}  // namespace tessera_addon
