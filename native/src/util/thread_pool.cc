#include "util/thread_pool.h"

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
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
// How often a spinning thread checks which CPU it is on and yields it.
constexpr auto kSpinCheckEvery = std::chrono::microseconds(10);

// At most one move off the submitter's CPU this often per thread (a move costs ~17 us on a VM): on
// a host too loaded to keep the threads apart, the thread parks instead.
constexpr auto kMoveEvery = std::chrono::milliseconds(1);

}  // namespace

std::shared_ptr<ThreadPool> ThreadPool::Shared(size_t threads, bool spin, ThreadPriority priority) {
  static std::mutex mu;
  static std::map<std::tuple<size_t, bool, ThreadPriority>, std::weak_ptr<ThreadPool>> pools;
  std::lock_guard<std::mutex> lock(mu);
  std::weak_ptr<ThreadPool>& slot = pools[{threads, spin, priority}];
  std::shared_ptr<ThreadPool> pool = slot.lock();
  if (!pool) {
    pool = std::make_shared<ThreadPool>(threads, spin, CpuPlacement{}, priority);
    slot = pool;
  }
  return pool;
}

ThreadPool::ThreadPool(size_t threads, bool spin, CpuPlacement placement, ThreadPriority priority)
    : spin_(spin), placement_(std::move(placement)) {
  job_cpus_ = std::make_unique<std::atomic<int>[]>(threads);
  for (size_t i = 0; i < threads; ++i) job_cpus_[i] = -1;
  for (size_t i = 0; i < threads; ++i)
    workers_.emplace_back([this, i, priority] {
      SetCurrentThreadPriority(priority);
      WorkerLoop(i);
    });
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
  submitter_cpu_.store(placement_.current(), std::memory_order_relaxed);
  Push(std::move(job), Priority::kRequest, 1);
}

bool ThreadPool::Push(std::function<void()> job, Priority priority, size_t count) {
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
  return wake;
}

void ThreadPool::SpinForWork() {
  auto now = std::chrono::steady_clock::now();
  const auto until = now + kSpin;
  auto next_check = now;
  do {
    // Spinning on the CPU of the thread that submits the work (the JS thread) would hold the CPU
    // that thread needs. Yielding it now and then, all this did once, kept the two threads on one CPU
    // taking turns while another CPU idled: a thread woken by the submitter is placed on the
    // submitter's CPU when the kernel sees no cache shared between CPUs (a VM), the balancer does
    // not move a thread that ran in the last half millisecond, and each yield made both run again
    // (measured: 14 us from submit to start and 17 us from finish to delivery, 1.6 and 2.7 apart).
    // So the thread moves to a CPU where neither the submitter nor a thread of this pool at work
    // runs, or parks when there is none (moving onto a CPU where another query thread still
    // scanned made a 100k-row scan 15% slower). It still yields: another process may want this
    // CPU, and alone on it the call returns at once.
    if (now >= next_check) {
      int cpu = placement_.current();
      if (cpu >= 0 && cpu == submitter_cpu_.load(std::memory_order_relaxed)) {
        thread_local std::chrono::steady_clock::time_point last_move;
        if (now - last_move < kMoveEvery || !MoveOffBusyCpus(cpu)) return;
        last_move = now;
        moves_.fetch_add(1, std::memory_order_relaxed);
      }
      std::this_thread::yield();
      next_check = now + kSpinCheckEvery;
    }
    for (int i = 0; i < 64; ++i) {
      if (queued_.load(std::memory_order_acquire) > 0) return;
      TESSERA_CPU_RELAX();
    }
    now = std::chrono::steady_clock::now();
  } while (now < until);
}

bool ThreadPool::MoveOffBusyCpus(int submitter_cpu) const {
  std::vector<int> avoid{submitter_cpu};
  for (size_t i = 0; i < workers_.size(); ++i) avoid.push_back(job_cpus_[i].load(std::memory_order_relaxed));
  return placement_.move_off(avoid);
}

void ThreadPool::WorkerLoop(size_t index) {
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
    job_cpus_[index].store(placement_.current(), std::memory_order_relaxed);
    job();
    job_cpus_[index].store(-1, std::memory_order_relaxed);
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
  if (helpers > 0) {
    // A parked thread woken here is often placed on this CPU (a VM's kernel sees no cache shared
    // between CPUs), where it would wait for the caller to run every task itself. So the caller
    // makes way for it once, and a helper that starts on the caller's CPU moves off it first
    // (measured: the second of two 1 ms tasks started 80 us after the call at the median but 880
    // at p90; with both, 100 and 130).
    int caller_cpu = placement_.current();
    auto help = [this, run, caller_cpu] {
      if (caller_cpu >= 0 && placement_.current() == caller_cpu) MoveOffBusyCpus(caller_cpu);
      run();
    };
    if (Push(help, Priority::kTask, helpers)) std::this_thread::yield();
  }
  run();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->cv.wait(lock, [&] { return shared->done.load() == tasks; });
  if (shared->error) std::rethrow_exception(shared->error);
}

}  // namespace tessera
