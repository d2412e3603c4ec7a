#include "completions.h"

namespace tessera_addon {

Completions::Completions(Napi::Env env) : env_(env) {
  signal_ = Signal::New(env, "tessera.completions", 0, 1, this);
  signal_.Unref(env);
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
  bool was_empty;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_empty = done_.empty();
    done_.push_back(std::move(finished));
  }
  // After the environment is torn down the call fails and the result is dropped with the process.
  if (was_empty) signal_.NonBlockingCall();
}

void Completions::Settle(Napi::Env env, Napi::Function, Completions* self, void*) {
  if (env == nullptr) return;  // the environment is going away
  std::vector<Finished> batch;
  {
    std::lock_guard<std::mutex> lock(self->mu_);
    batch.swap(self->done_);
  }
  for (const Finished& f : batch) f.outcome.Settle(env, f.deferred);
  self->outstanding_ -= batch.size();
  if (self->outstanding_ == 0) self->signal_.Unref(env);
}

}  // namespace tessera_addon
