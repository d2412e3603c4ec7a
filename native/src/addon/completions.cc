#include "completions.h"

namespace tessera_addon {

Completions::Completions(Napi::Env env) : env_(env) {
  signal_ = Signal::New(env, "tessera.completions", 0, 1, this);
  signal_.Unref(env);
  set_immediate_ = Napi::Persistent(env.Global().Get("setImmediate").As<Napi::Function>());
  deliver_ = Napi::Persistent(Napi::Function::New(env, [this](const Napi::CallbackInfo& info) { Deliver(info.Env()); }));
}

void Completions::Submit(std::shared_ptr<tessera::Store> store, napi_deferred deferred, std::function<std::string()> work, Lane lane) {
  tessera::Store& s = *store;
  if (outstanding_++ == 0) signal_.Ref(env_);
  auto job = [this, deferred, work = std::move(work), store = std::move(store)]() mutable {
    Finish(Finished{deferred, Outcome::Of(work), std::move(store)});
  };
  if (lane == Lane::kRead)
    s.Submit(std::move(job));
  else
    s.SubmitBlocking(std::move(job));
}

void Completions::Finish(Finished finished) {
  bool signal;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_.push_back(std::move(finished));
    signal = !armed_;
    armed_ = true;
  }
  // After the environment is torn down the call fails and the result is dropped with the process.
  if (signal) signal_.NonBlockingCall();
}

void Completions::Settle(Napi::Env env, Napi::Function, Completions* self, void*) {
  if (env == nullptr) return;  // the environment is going away
  self->set_immediate_.Call({self->deliver_.Value()});
}

void Completions::Deliver(Napi::Env env) {
  std::vector<Finished> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(done_);
    armed_ = false;
  }
  for (const Finished& f : batch) f.outcome.Settle(env, f.deferred);
  outstanding_ -= batch.size();
  if (outstanding_ == 0) signal_.Unref(env);
}

}  // namespace tessera_addon
