#include "completions.h"

namespace tessera_addon {

namespace {

constexpr auto kYieldEvery = std::chrono::microseconds(20);

}  // namespace

Completions::Completions(Napi::Env env) : env_(env) {
  signal_ = Signal::New(env, "tessera.completions", 0, 1, this);
  signal_.Unref(env);
  set_immediate_ = Napi::Persistent(env.Global().Get("setImmediate").As<Napi::Function>());
  deliver_ = Napi::Persistent(Napi::Function::New(env, [this](const Napi::CallbackInfo& info) { Deliver(info.Env(), true); }));
}

void Completions::Submit(std::shared_ptr<tessera::Store> store, napi_deferred deferred, std::function<std::string()> work, Lane lane,
                         napi_ref held) {
  tessera::Store& s = *store;
  if (outstanding_++ == 0) signal_.Ref(env_);
  unstarted_.fetch_add(1, std::memory_order_relaxed);
  auto job = [this, deferred, work = std::move(work), store = std::move(store), held]() mutable {
    unstarted_.fetch_sub(1, std::memory_order_relaxed);
    Finish(Finished{deferred, Outcome::Of(work), std::move(store), held});
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
    signal = !armed_ && !polling_;
    armed_ = armed_ || signal;
  }
  // After the environment is torn down the call fails and the result is dropped with the process.
  if (signal) signal_.NonBlockingCall();
}

void Completions::Settle(Napi::Env env, Napi::Function, Completions* self, void*) {
  if (env == nullptr) return;  // the environment is going away
  self->set_immediate_.Call({self->deliver_.Value()});
}

size_t Completions::BeginPolling() {
  if (outstanding_ > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    polling_ = true;
  }
  return outstanding_;
}

void Completions::Poll(Napi::Env env, bool keep_polling) {
  // A call no thread has begun may be waiting for this CPU; otherwise yield only now and then, in
  // case the thread running it shares this CPU (a syscall costs microseconds on a VM).
  auto now = std::chrono::steady_clock::now();
  if (unstarted_.load(std::memory_order_relaxed) > 0 || now - last_yield_ > kYieldEvery) {
    std::this_thread::yield();
    last_yield_ = now;
  }
  bool finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    polling_ = keep_polling;
    finished = !done_.empty();
  }
  if (finished) Deliver(env, false);
}

void Completions::Deliver(Napi::Env env, bool signalled) {
  std::vector<Finished> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
    // A signal sent before the polling began: the poll's next turn delivers instead, so a turn
    // never settles two batches (one in each).
    if (signalled && polling_) return;
    batch.swap(done_);
  }
  for (Finished& f : batch) {
    f.outcome.Settle(env, f.deferred);
    if (f.held != nullptr) napi_delete_reference(env, f.held);
  }
  outstanding_ -= batch.size();
  if (outstanding_ == 0) signal_.Unref(env);
}

}  // namespace tessera_addon
