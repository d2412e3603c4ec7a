// The query threads: they run whole requests handed over by Submit (the core's own queue, fed by
// the addon straight from the JS thread) and the tasks a request splits into with ParallelFor.
// An idle thread (one at a time) spins briefly before it parks, so a request arriving within the
// spin costs no futex wake; a submitter wakes a parked thread only when none is spinning. A thread
// that finds itself spinning on the submitter's CPU moves to a free one, or parks (SpinForWork).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/cpu_placement.h"
#include "util/thread_priority.h"

namespace tessera {

class ThreadPool {
 public:
  // threads 0: no threads at all; ParallelFor runs every task on its caller (a request run inline,
  // on the JS thread) and Submit is not allowed.
  // spin false: idle threads park at once (for work that waits on the disk anyway).
  // placement: where threads are found and moved (SpinForWork); tests pass stand-ins.
  // priority: the threads' (background: the pool index builds fan out over).
  explicit ThreadPool(size_t threads, bool spin = true, CpuPlacement placement = {}, ThreadPriority priority = ThreadPriority::kNormal);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The process's pool of this size and kind, made on first use and shared by every store that asks
  // while one holds it: a process serving many stores (--namespaced tenants) keeps one set of
  // threads, not one per store.
  static std::shared_ptr<ThreadPool> Shared(size_t threads, bool spin = true, ThreadPriority priority = ThreadPriority::kNormal);

  // How often an idle thread has moved off the submitter's CPU (SpinForWork).
  uint64_t moves() const { return moves_.load(std::memory_order_relaxed); }

  // How many threads a query's work is split over.
  size_t size() const { return workers_.empty() ? 1 : workers_.size(); }

  // Runs job on a pool thread, after the tasks of requests already running (which go first, so a
  // started request finishes before a new one starts). job must not throw.
  void Submit(std::function<void()> job);

  // Runs fn(task) for task in [0, tasks) on the caller and up to size() - 1 pool threads; the
  // caller blocks until every task has run. The first exception thrown is rethrown here.
  void ParallelFor(size_t tasks, const std::function<void(size_t)>& fn);

 private:
  enum class Priority { kTask, kRequest };
  // True when it woke a parked thread.
  bool Push(std::function<void()> job, Priority priority, size_t count);
  void WorkerLoop(size_t index);
  // Spins until work appears, the spin time has passed, or the spinning thread finds itself on the
  // submitter's CPU with no free CPU to move to (MoveOffBusyCpus) or moved within kMoveEvery.
  void SpinForWork();
  // Moves the calling thread off submitter_cpu and off every CPU where a thread of this pool runs a
  // job; false, moving nothing, when no CPU is left.
  bool MoveOffBusyCpus(int submitter_cpu) const;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<size_t> queued_{0};  // queue_.size(), readable while spinning
  std::atomic<bool> spinning_{false};
  std::atomic<int> submitter_cpu_{-1};  // the CPU the latest Submit ran on, -1 where unknown
  std::atomic<uint64_t> moves_{0};
  // Per thread, the CPU it runs a job on, -1 while it has none. Sized before the threads start.
  std::unique_ptr<std::atomic<int>[]> job_cpus_;
  size_t parked_ = 0;  // threads waiting on cv_; under mu_
  bool stopping_ = false;
  const bool spin_;
  const CpuPlacement placement_;
  std::vector<std::thread> workers_;
};

}  // namespace tessera
