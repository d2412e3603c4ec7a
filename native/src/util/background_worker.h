// One thread running queued jobs in order (index builds, the log's writes). The thread leaves once
// the queue has stayed empty for the linger time and the next job starts another, so an idle store
// (one of many namespaced tenants) keeps no thread.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "util/thread_priority.h"

namespace tessera {

class BackgroundWorker {
 public:
  // linger: how long the thread waits for another job before it leaves; 0 for work that comes
  // rarely, more where jobs come often and starting a thread for each would cost more than the job.
  // priority: the thread's, for every job it runs.
  explicit BackgroundWorker(std::chrono::milliseconds linger = std::chrono::milliseconds(0),
                            ThreadPriority priority = ThreadPriority::kNormal)
      : linger_(linger), priority_(priority) {}
  ~BackgroundWorker() { Stop(); }
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // Queues job, starting a thread when none is running. Ignored once stopped.
  void Post(std::function<void()> job);
  // Blocks until no job is queued or running.
  void WaitIdle();
  // Drops queued jobs and joins the thread once the running job returns (the caller makes it
  // return soon, e.g. through a cancel token the job polls).
  void Stop();

 private:
  void Loop();

  const std::chrono::milliseconds linger_;
  const ThreadPriority priority_;
  std::mutex mu_;
  std::condition_variable idle_, posted_;
  std::deque<std::function<void()>> queue_;
  bool running_job_ = false;
  bool thread_running_ = false;  // a thread is in Loop and will see the queue before it leaves
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tessera
