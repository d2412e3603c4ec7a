#include "util/thread_pool.h"

#include <atomic>
#include <exception>
#include <memory>

namespace tessera {

ThreadPool::ThreadPool(size_t threads) {
  size_t workers = threads > 1 ? threads - 1 : 0;  // the calling thread is the last worker
  for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

void ThreadPool::ParallelFor(size_t tasks, const std::function<void(size_t)>& fn) {
  if (tasks == 0) return;
  // Tasks are claimed from a shared counter, so the caller keeps working even when every pool
  // thread is busy with another query.
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
  size_t helpers = std::min(workers_.size(), tasks - 1);
  if (helpers > 0) {  // a single task runs here alone: waking a worker for nothing costs a context switch
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < helpers; ++i) queue_.push_back(run);
    }
    cv_.notify_all();
  }
  run();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->cv.wait(lock, [&] { return shared->done.load() == tasks; });
  if (shared->error) std::rethrow_exception(shared->error);
}

}  // namespace tessera
