#include "util/quiet_timer.h"

namespace tessera {

void QuietTimer::Touch() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  deadline_ = std::chrono::steady_clock::now() + quiet_;
  armed_ = true;
  // A running thread reads the new deadline when its wait ends: moving it later needs no wake-up.
  if (thread_running_) return;
  // A thread that left its loop released the lock as it returned: joining it here is brief.
  if (thread_.joinable()) thread_.join();
  thread_running_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void QuietTimer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    armed_ = false;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void QuietTimer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (armed_ && !stopping_) {
    if (std::chrono::steady_clock::now() < deadline_) {
      changed_.wait_until(lock, deadline_);
      continue;
    }
    armed_ = false;
    lock.unlock();
    action_();
    lock.lock();
  }
  thread_running_ = false;
}

}  // namespace tessera
