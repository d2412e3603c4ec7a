#include "util/thread_pool.h"

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define TESSERA_CPU_RELAX() asm volatile("yield")
#else
#define TESSERA_CPU_RELAX() std::this_thread::yield()
#endif

namespace tessera {

namespace {

// Long enough to catch the next request of a busy connection (a round trip through the socket and
// the JS thread is tens of microseconds, a futex wake on this VM 50-100), short enough that an idle
// store costs nothing.
constexpr auto kSpin = std::chrono::microseconds(200);
// How often a spinning thread yields its CPU.
constexpr auto kSpinYieldEvery = std::chrono::microseconds(10);

}  // namespace

std::shared_ptr<ThreadPool> ThreadPool::Shared(size_t threads, bool spin) {
  static std::mutex mu;
  static std::map<std::pair<size_t, bool>, std::weak_ptr<ThreadPool>> pools;
  std::lock_guard<std::mutex> lock(mu);
  std::weak_ptr<ThreadPool>& slot = pools[{threads, spin}];
  std::shared_ptr<ThreadPool> pool = slot.lock();
  if (!pool) {
    pool = std::make_shared<ThreadPool>(threads, spin);
    slot = pool;
  }
  return pool;
}

ThreadPool::ThreadPool(size_t threads, bool spin) : spin_(spin) {
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Submit(std::function<void()> job) {
  if (workers_.empty()) throw std::logic_error("ThreadPool::Submit on a pool without threads");
  Push(std::move(job), Priority::kRequest, 1);
}

void ThreadPool::Push(std::function<void()> job, Priority priority, size_t count) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < count; ++i) {
      if (priority == Priority::kTask)
        queue_.push_front(job);
      else
        queue_.push_back(job);
    }
    queued_.store(queue_.size(), std::memory_order_release);
    wake = parked_ > 0 && (count > 1 || !spinning_.load(std::memory_order_acquire));
  }
  // A spinning thread sees queued_ without a wake; a parked one needs the futex.
  if (wake) count == 1 ? cv_.notify_one() : cv_.notify_all();
}

void ThreadPool::SpinForWork() const {
  auto now = std::chrono::steady_clock::now();
  const auto until = now + kSpin;
  auto next_yield = now + kSpinYieldEvery;
  do {
    for (int i = 0; i < 64; ++i) {
      if (queued_.load(std::memory_order_acquire) > 0) return;
      TESSERA_CPU_RELAX();
    }
    now = std::chrono::steady_clock::now();
    // On a CPU shared with the thread that will submit the work (a loaded 2-core host), spinning
    // alone would hold the CPU that thread needs for up to kSpin; yielding hands it over. Not on
    // every round: a yield is a syscall, microseconds on a VM, during which a request waits.
    if (now >= next_yield) {
      std::this_thread::yield();
      next_yield = now + kSpinYieldEvery;
    }
  } while (now < until);
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // One idle thread spins at a time: enough to catch the next request, and only one core spent.
      if (spin_ && queue_.empty() && !stopping_ && !spinning_.exchange(true)) {
        lock.unlock();
        SpinForWork();
        spinning_.store(false);
        lock.lock();
      }
      ++parked_;
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      --parked_;
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      queued_.store(queue_.size(), std::memory_order_release);
    }
    job();
  }
}

void ThreadPool::ParallelFor(size_t tasks, const std::function<void(size_t)>& fn) {
  if (tasks == 0) return;
  // Tasks are claimed from a shared counter, so the caller keeps working even when every pool
  // thread is busy with another request.
  struct Shared {
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex mu;
    std::condition_variable cv;
    std::exception_ptr error;
  };
  auto shared = std::make_shared<Shared>();
  auto run = [shared, tasks, &fn] {
    for (size_t t; (t = shared->next.fetch_add(1)) < tasks;) {
      try {
        fn(t);
      } catch (...) {
        std::lock_guard<std::mutex> lock(shared->mu);
        if (!shared->error) shared->error = std::current_exception();
      }
      if (shared->done.fetch_add(1) + 1 == tasks) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->cv.notify_all();
      }
    }
  };
  // The caller is one of size() threads working on it (a query thread running a request, or the
  // index builder); a single task runs here alone, as waking a thread for nothing costs a switch.
  size_t helpers = std::min(workers_.empty() ? 0 : workers_.size() - 1, tasks - 1);
  if (helpers > 0) Push(run, Priority::kTask, helpers);
  run();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->cv.wait(lock, [&] { return shared->done.load() == tasks; });
  if (shared->error) std::rethrow_exception(shared->error);
}

}  // namespace tessera
