// Mutex, MutexLock and CondVar: std::mutex and its companions, annotated so clang's
// -Wthread-safety checks that a member TS_GUARDED_BY a mutex is touched only with it held.
#pragma once
#include <condition_variable>
#include <mutex>

#include "util/thread_annotations.h"

namespace tessera {

class TS_CAPABILITY("mutex") Mutex {
 public:
  void lock() TS_ACQUIRE() { mu_.lock(); }
  void unlock() TS_RELEASE() { mu_.unlock(); }
  // Tells the analysis the caller holds it (a callback run under a lock taken elsewhere).
  void AssertHeld() const TS_ASSERT_CAPABILITY(this) {}

 private:
  std::mutex mu_;
};

// Holds mu for its scope.
class TS_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) TS_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() TS_RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// A condition variable waited on with its Mutex held (Wait releases it while blocked).
class CondVar {
 public:
  void Wait(Mutex& mu) TS_REQUIRES(mu) { cv_.wait(mu); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace tessera
