#include "tessera/file_checksum.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

#include "tessera/error.h"
#include "util/crc32c.h"

namespace tessera {
namespace {

// Large enough that a read costs little next to its bytes; small enough to stay in L2.
constexpr size_t kChunkBytes = size_t(1) << 20;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void Fail(const char* what, const std::string& path) {
  Status status = errno == ENOENT                        ? Status::kNotFound
                  : (errno == ENOSPC || errno == EDQUOT) ? Status::kInsufficientStorage
                                                         : Status::kInternal;
  throw Error(status, std::string(what) + " " + path + ": " + std::strerror(errno));
}

Fd OpenToRead(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) Fail("open", path);
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return fd;
}

// Reads the first `length` bytes of `path`, open as `fd` (all of it: nullopt), chunk by chunk
// into `sink`, answering their checksum.
FileChecksum ReadChecksummed(const Fd& fd, const std::string& path, std::optional<uint64_t> length,
                             const std::function<void(std::string_view)>& sink) {
  std::vector<char> buffer(kChunkBytes);
  FileChecksum sum{0, 0};
  while (!length || sum.bytes < *length) {
    size_t want = length ? size_t(std::min<uint64_t>(buffer.size(), *length - sum.bytes)) : buffer.size();
    ssize_t got = ::read(fd.get(), buffer.data(), want);
    if (got < 0) {
      if (errno == EINTR) continue;
      Fail("read", path);
    }
    if (got == 0) break;
    sum.crc32c = Crc32c(buffer.data(), size_t(got), sum.crc32c);
    sum.bytes += uint64_t(got);
    if (sink) sink(std::string_view(buffer.data(), size_t(got)));
  }
  if (length && sum.bytes < *length)
    throw Error(Status::kBadRequest,
                path + " holds " + std::to_string(sum.bytes) + " bytes, fewer than the " + std::to_string(*length) + " asked for");
  return sum;
}

}  // namespace

FileChecksum ChecksumFile(const std::string& path, std::optional<uint64_t> length) {
  return ReadChecksummed(OpenToRead(path), path, length, nullptr);
}

FileChecksum CopyFileChecksummed(const std::string& from, const std::string& to, std::optional<uint64_t> length) {
  Fd in = OpenToRead(from);  // first: a missing source creates nothing
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out.get() < 0) Fail("create", to);
  FileChecksum sum = ReadChecksummed(in, from, length, [&](std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t wrote = ::write(out.get(), bytes.data(), bytes.size());
      if (wrote < 0) {
        if (errno == EINTR) continue;
        Fail("write", to);
      }
      bytes.remove_prefix(size_t(wrote));
    }
  });
#ifdef __linux__
  ::sync_file_range(out.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
  return sum;
}

void SyncFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) Fail("open", path);
  if (::fdatasync(fd.get()) != 0) Fail("sync", path);
}

}  // namespace tessera
