#include "storage/wal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tessera/error.h"
#include "util/byte_io.h"
#include "util/crc32c.h"
#include "util/file_util.h"

namespace tessera {
namespace {

// A record larger than this is a corrupt length, not a real batch.
constexpr uint32_t kMaxRecordBytes = 1u << 31;
constexpr size_t kFrameBytes = 8;  // u32 length + u32 crc

[[noreturn]] void IoError(const char* what) { throw Internal(std::string("write-ahead log ") + what + ": " + std::strerror(errno)); }

}  // namespace

Wal::~Wal() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t Wal::Replay(const std::string& path, bool truncate, const std::function<void(std::string_view)>& fn, uint64_t from) {
  if (!FileExists(path)) return 0;
  std::string data = ReadWholeFile(path);
  if (from > data.size()) return from;  // emptied since: the caller finds out by the versions
  size_t pos = from;
  while (data.size() - pos >= kFrameBytes) {
    ByteReader frame(std::string_view(data).substr(pos, kFrameBytes));
    uint32_t len = frame.Fixed<uint32_t>();
    uint32_t crc = frame.Fixed<uint32_t>();
    // A zero length is never written; it is what a filesystem leaves when the file grew but its
    // data never landed (and the CRC of nothing is 0), so it ends the log like any torn tail.
    if (len == 0 || len > kMaxRecordBytes || data.size() - pos - kFrameBytes < len) break;
    std::string_view payload(data.data() + pos + kFrameBytes, len);
    if (Crc32c(payload.data(), payload.size()) != crc) break;
    fn(payload);
    pos += kFrameBytes + len;
  }
  if (truncate && pos < data.size()) {
    if (::truncate(path.c_str(), off_t(pos)) != 0) IoError("truncate");
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) IoError("fsync");
    ::close(fd);
  }
  return pos;
}

void Wal::OpenForAppend(const std::string& path) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) IoError("open");
  off_t end = ::lseek(fd_, 0, SEEK_END);
  bytes_ = end < 0 ? 0 : uint64_t(end);
  std::string dir = path.substr(0, path.find_last_of('/'));
  FsyncDir(dir);
}

void Wal::Append(std::string_view payload) {
  std::string frame;
  PutFixed<uint32_t>(&frame, uint32_t(payload.size()));
  PutFixed<uint32_t>(&frame, Crc32c(payload.data(), payload.size()));
  struct iovec_like {
    const char* p;
    size_t n;
  } parts[2] = {{frame.data(), frame.size()}, {payload.data(), payload.size()}};
  for (auto& part : parts) {
    while (part.n > 0) {
      ssize_t w = ::write(fd_, part.p, part.n);
      if (w < 0) {
        if (errno == EINTR) continue;
        IoError("write");
      }
      part.p += w;
      part.n -= size_t(w);
    }
  }
  bytes_ += frame.size() + payload.size();
}

void Wal::Sync() {
  if (::fdatasync(fd_) != 0) IoError("fsync");
}

void Wal::Rotate(const std::string& archive) {
  Sync();
  if (::rename(path_.c_str(), archive.c_str()) != 0) IoError("rename");
  ::close(fd_);
  fd_ = -1;
  OpenForAppend(path_);  // creates the new log and makes both names durable
}

void Wal::Reset() {
  if (::ftruncate(fd_, 0) != 0) IoError("truncate");
  Sync();
  bytes_ = 0;
}

}  // namespace tessera
