#include "util/background_worker.h"

namespace tessera {

void BackgroundWorker::Post(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  queue_.push_back(std::move(job));
  if (thread_running_) {  // it takes the job before it leaves
    posted_.notify_one();
    return;
  }
  // A thread that left its loop released the lock as it returned: joining it here is brief.
  if (thread_.joinable()) thread_.join();
  thread_running_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void BackgroundWorker::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return stopping_ || (queue_.empty() && !running_job_); });
}

void BackgroundWorker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  idle_.notify_all();
  posted_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundWorker::Loop() {
  SetCurrentThreadPriority(priority_);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    while (!stopping_ && !queue_.empty()) {
      std::function<void()> job = std::move(queue_.front());
      queue_.pop_front();
      running_job_ = true;
      lock.unlock();
      job();
      lock.lock();
      running_job_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
    if (stopping_ || !posted_.wait_for(lock, linger_, [this] { return stopping_ || !queue_.empty(); })) break;
  }
  thread_running_ = false;
}

}  // namespace tessera
