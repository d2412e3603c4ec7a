// QuietTimer runs an action once a quiet period has passed since the last Touch: a debounce. Its
// thread exists only while a Touch waits to fire, so an idle store (one of many namespaced tenants)
// keeps none.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace tessera {

class QuietTimer {
 public:
  QuietTimer(std::chrono::milliseconds quiet, std::function<void()> action) : quiet_(quiet), action_(std::move(action)) {}
  ~QuietTimer() { Stop(); }
  QuietTimer(const QuietTimer&) = delete;
  QuietTimer& operator=(const QuietTimer&) = delete;

  // (Re)starts the quiet period; the action runs once it ends with no other Touch. Ignored once stopped.
  void Touch();
  // Drops a pending action and joins the thread once a running one returns.
  void Stop();

 private:
  void Loop();

  const std::chrono::milliseconds quiet_;
  const std::function<void()> action_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::chrono::steady_clock::time_point deadline_;
  bool armed_ = false;
  bool thread_running_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tessera
