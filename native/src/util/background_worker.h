// One thread running queued jobs in order, for work no request waits on (index builds). The thread
// leaves once the queue is empty and the next job starts another, so an idle store (one of many
// namespaced tenants) keeps no thread.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace tessera {

class BackgroundWorker {
 public:
  BackgroundWorker() = default;
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

  std::mutex mu_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  bool running_job_ = false;
  bool thread_running_ = false;  // a thread is in Loop and will see the queue before it leaves
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tessera
