#include "storage/writer_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "storage/file_names.h"
#include "tessera/error.h"
#include "util/file_util.h"

namespace tessera {

std::optional<WriterLock> WriterLock::TryAcquire(const std::string& dir) {
  std::string path = LockPath(dir);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Internal("cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  WriterLock lock(fd);
  std::string who = "pid " + std::to_string(::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, who.data(), who.size(), 0) < 0)
    throw Internal("cannot write " + path + ": " + std::strerror(errno));
  return lock;
}

std::string WriterLock::Holder(const std::string& dir) {
  std::string holder = ReadWholeFile(LockPath(dir));
  return holder.empty() ? "another process" : holder;
}

WriterLock& WriterLock::operator=(WriterLock&& o) noexcept {
  if (this != &o) {
    Release();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void WriterLock::Release() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace tessera
