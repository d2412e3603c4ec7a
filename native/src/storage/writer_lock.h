// The writer lock: an exclusive flock on LOCK, whose text names the holder so that a second
// process can say who keeps it from writing. Released when the holder closes or dies.
#pragma once
#include <optional>
#include <string>

namespace tessera {

class WriterLock {
 public:
  // The lock, or nullopt when another process holds it. Throws Error(500) on IO faults.
  static std::optional<WriterLock> TryAcquire(const std::string& dir);
  // Who holds the store's lock, as its LOCK file names them.
  static std::string Holder(const std::string& dir);

  WriterLock(WriterLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  WriterLock& operator=(WriterLock&& o) noexcept;
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  ~WriterLock() { Release(); }

  void Release();

 private:
  explicit WriterLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace tessera
