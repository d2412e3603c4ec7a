#include "util/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tessera/error.h"

namespace tessera {
namespace {

[[noreturn]] void IoError(const std::string& what, const std::string& path) {
  throw Internal(what + " " + path + ": " + std::strerror(errno));
}

void WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      IoError("write", path);
    }
    p += w;
    n -= size_t(w);
  }
}

}  // namespace

void FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) IoError("open directory", dir);
  if (::fsync(fd) != 0) {
    ::close(fd);
    IoError("fsync directory", dir);
  }
  ::close(fd);
}

void WriteFileAtomic(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) IoError("create", tmp);
  WriteAll(fd, data.data(), data.size(), tmp);
  if (::fsync(fd) != 0) {
    ::close(fd);
    IoError("fsync", tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) IoError("rename", tmp);
  std::string dir = path.substr(0, path.find_last_of('/'));
  FsyncDir(dir.empty() ? "." : dir);
}

std::string ReadWholeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) IoError("open", path);
  std::string out;
  // Sized once: a segment keeps its rows file, and doubling growth would keep up to twice its size.
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(size_t(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      IoError("read", path);
    }
    if (r == 0) break;
    out.append(buf, size_t(r));
  }
  ::close(fd);
  return out;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void RemoveFile(const std::string& path) { ::unlink(path.c_str()); }

Region& Region::operator=(Region&& o) noexcept {
  if (this != &o) {
    Release();
    data_ = o.data_;
    size_ = o.size_;
    file_ = o.file_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

void Region::Release() {
  if (data_ == nullptr) return;
  ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

void Region::UnmapPages(size_t offset, size_t bytes) const {
  // MADV_DONTNEED on a shared file map drops the mappings only; on anonymous memory it would zero it.
  if (!file_ || data_ == nullptr || offset >= size_) return;
  size_t from = offset / kHugePage * kHugePage, to = std::min(size_, (offset + bytes + kHugePage - 1) / kHugePage * kHugePage);
  ::madvise(static_cast<char*>(data_) + from, to - from, MADV_DONTNEED);
}

void Region::ReadAhead() const {
  if (file_ && data_ != nullptr) ::madvise(data_, size_, MADV_WILLNEED);
}

ReadOnlyFile::ReadOnlyFile(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) IoError("open", path);
}

ReadOnlyFile::~ReadOnlyFile() { ::close(fd_); }

void ReadOnlyFile::ReadAt(uint64_t offset, size_t bytes, void* out) const {
  auto* to = static_cast<char*>(out);
  while (bytes > 0) {
    ssize_t n = ::pread(fd_, to, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) IoError("read", path_);
    if (n == 0) throw Internal("read " + path_ + ": the file ends before offset " + std::to_string(offset + bytes));
    to += n;
    offset += uint64_t(n);
    bytes -= size_t(n);
  }
}

Region Region::Anonymous(size_t bytes) {
  Region r;
  if (bytes == 0) return r;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw Error(Status::kInsufficientStorage, "cannot reserve " + std::to_string(bytes) + " bytes of memory");
  r.data_ = p;
  r.size_ = bytes;
  // Past its first 2 MiB a region is committed in huge pages where the kernel allows it: a page
  // fault costs microseconds on a VM, one per 4 KiB made filling a large array (a memory segment
  // taking a log's rows at open, a graph being built) mostly faults. The first 2 MiB keep small
  // pages, so the many small arrays of small collections commit no more than they use.
  uintptr_t from = (reinterpret_cast<uintptr_t>(p) + 2 * kHugePage - 1) & ~uintptr_t(kHugePage - 1);
  uintptr_t to = (reinterpret_cast<uintptr_t>(p) + bytes) & ~uintptr_t(kHugePage - 1);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
  return r;
}

std::optional<size_t> HugePageAhead(uintptr_t base, size_t offset, size_t bytes) {
  uintptr_t at = base + offset;
  uintptr_t last_page = (at + bytes - 1) / kHugePage;
  bool opened = at % kHugePage == 0 || at / kHugePage != last_page;
  if (!opened || last_page == base / kHugePage) return std::nullopt;
  return (last_page + 1) * kHugePage - base;
}

void Region::Populate(size_t offset, size_t bytes) const {
#ifdef MADV_POPULATE_WRITE
  if (offset >= size_) return;
  ::madvise(static_cast<char*>(data_) + offset, std::min(bytes, size_ - offset), MADV_POPULATE_WRITE);
#endif
}

Region Region::MapFile(const std::string& path) {
  Region r;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) IoError("open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    IoError("stat", path);
  }
  if (st.st_size > 0) {
    void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      IoError("mmap", path);
    }
    r.data_ = p;
    r.size_ = size_t(st.st_size);
    r.file_ = true;
    // A page-cache miss then reads a whole 2 MiB folio, which the kernel maps with one entry:
    // walks and rescores read rows at random, and with 4 KiB mappings each row costs a TLB miss
    // (on this VM worse: the kernel's sampling of accessed bits traps per page).
    if (r.size_ >= kHugePage) ::madvise(p, r.size_, MADV_HUGEPAGE);
  }
  ::close(fd);
  return r;
}

Region Region::LoadFile(const std::string& path) {
  // Read straight into anonymous memory of the file's size: no staging copy left in the heap.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) IoError("open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    IoError("stat", path);
  }
  Region r = Anonymous(size_t(st.st_size));
  for (size_t done = 0; done < r.size_;) {
    ssize_t n = ::read(fd, static_cast<char*>(r.data_) + done, r.size_ - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      IoError("read", path);
    }
    done += size_t(n);
  }
  ::close(fd);
  return r;
}

void MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    std::string partial = path.substr(0, i);
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) IoError("cannot create directory", partial);
  }
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) IoError("cannot list directory", dir);
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(d);
  return names;
}

}  // namespace tessera
