// Completions: reads that finished on the core's query threads, handed back to the JS thread
// through one thread-safe function per environment. A thread that finishes a read queues it and
// signals only when no delivery is pending, so one wake of the JS thread settles every read that
// finished meanwhile, in the order they finished. The signal's callback only schedules the
// delivery (an immediate, later in the same turn of the event loop): Node's thread-safe function
// calls again at once when signalled during its call, up to 1,000 times, so settling there let a
// steady stream of completions, and the promise continuations they ran, keep timers and sockets
// waiting that long. Now each turn settles one batch. While the JS thread polls for a read
// (lib/store/core_wait.ts) it settles finished reads itself, each turn, and no signal is sent.
#pragma once
#include <napi.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "outcome.h"
#include "tessera/store.h"

namespace tessera_addon {

class Completions {
 public:
  explicit Completions(Napi::Env env);

  // Where a call runs: a read on the query threads, anything that may wait on the disk on the
  // store's blocking threads.
  enum class Lane { kRead, kBlocking };

  // Runs work on one of store's lanes and settles deferred with its outcome on the JS thread.
  // JS thread only. The store reference is dropped on the JS thread too: the last reference
  // closing a store on one of its own threads could not join them. held (when given) is the
  // reference keeping the bytes work reads alive, deleted once the call settled.
  void Submit(std::shared_ptr<tessera::Store> store, napi_deferred deferred, std::function<std::string()> work, Lane lane = Lane::kRead,
              napi_ref held = nullptr);

  // Calls submitted and not yet settled. JS thread only.
  size_t outstanding() const { return outstanding_; }

  // JS thread: it is about to poll (Poll) for the calls outstanding, if any; from now on they
  // finish without a signal. Returns outstanding().
  size_t BeginPolling();

  // JS thread, one turn of its polling: yields the CPU (a query thread sharing it runs the read
  // meanwhile), then settles every read finished so far. While keep_polling, a read that finishes
  // does not signal: the next turn settles it. keep_polling false hands delivery back to the
  // signal, so no read finishing afterwards is left waiting.
  void Poll(Napi::Env env, bool keep_polling);

  // The setImmediate deliveries are scheduled with (the global one until told): lib/native.ts
  // passes node:timers' own, which test suites' fake timers leave alone.
  void ScheduleWith(Napi::Function set_immediate) { set_immediate_ = Napi::Persistent(set_immediate); }

 private:
  struct Finished {
    napi_deferred deferred;
    Outcome outcome;
    std::shared_ptr<tessera::Store> store;
    napi_ref held;
  };
  static void Settle(Napi::Env env, Napi::Function, Completions* self, void*);
  using Signal = Napi::TypedThreadSafeFunction<Completions, void, &Completions::Settle>;

  // Any thread.
  void Finish(Finished finished);
  // JS thread: settles the queued batch; from the signal's immediate (signalled) or a poll.
  void Deliver(Napi::Env env, bool signalled);

  Napi::Env env_;
  Signal signal_;
  std::chrono::steady_clock::time_point last_yield_;  // JS thread only
  size_t outstanding_ = 0;                            // submitted, not yet settled; JS thread only. The signal keeps the
                                                      // event loop alive while any is.
  Napi::FunctionReference set_immediate_;
  Napi::FunctionReference deliver_;  // Deliver, callable from JS
  std::mutex mu_;
  std::vector<Finished> done_;
  std::atomic<size_t> unstarted_{0};  // submitted, not yet begun by a thread of the core
  bool armed_ = false;                // a delivery is signalled or scheduled and has not begun: Finish need not signal
  bool polling_ = false;              // the JS thread polls (Poll): Finish need not signal
};

}  // namespace tessera_addon
