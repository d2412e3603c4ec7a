// Small POSIX file helpers: durable writes, whole-file reads, and memory regions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Writes data to path through a temporary file, fsync and rename, then fsyncs the directory, so
// the file is either the old one or the new one after a crash.
void WriteFileAtomic(const std::string& path, std::string_view data);
std::string ReadWholeFile(const std::string& path);
bool FileExists(const std::string& path);
void FsyncDir(const std::string& dir);
void RemoveFile(const std::string& path);
// Creates path and any missing parents.
void MakeDirs(const std::string& path);
// Names of the entries of dir (no "." or "..").
std::vector<std::string> ListDir(const std::string& dir);

// The size of a huge page on x86-64 (and of ARM's with 4 KiB pages).
constexpr size_t kHugePage = size_t(2) << 20;

// For bytes just written at offset into memory at base that is filled front to back: the offset of
// the huge page after the one the write ends in, when the write opened that page, to be committed
// ahead of the writer. Nothing while the first huge page fills, so memory that stays small (a
// small collection's) commits no more than it uses.
std::optional<size_t> HugePageAhead(uintptr_t base, size_t offset, size_t bytes);

// A block of mapped memory: anonymous (zero-filled, committed lazily by the kernel), a read-only
// map of a file, or a file read into anonymous memory.
class Region {
 public:
  Region() = default;
  static Region Anonymous(size_t bytes);
  static Region MapFile(const std::string& path);
  static Region LoadFile(const std::string& path);
  // MapFile when map, else LoadFile: how a store opens the files of its sealed segments.
  static Region OpenFile(const std::string& path, bool map) { return map ? MapFile(path) : LoadFile(path); }
  Region(Region&& o) noexcept { *this = std::move(o); }
  Region& operator=(Region&& o) noexcept;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region() { Release(); }

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // Commits the pages of [offset, offset + bytes) (clipped to the region; offset page-aligned) as
  // first writes would, leaving what they hold; nothing where the kernel lacks MADV_POPULATE_WRITE.
  void Populate(size_t offset, size_t bytes) const;
  // A map of a file: takes the pages of [offset, offset + bytes) out of this process's page tables,
  // widened to whole huge pages (a fault maps the page-cache folio around it, up to one huge page,
  // so a read near the range's edge maps pages past it) and clipped to the region. They stay in
  // the page cache, and a later read maps them again. Nothing for other regions, whose pages hold
  // the data.
  void UnmapPages(size_t offset, size_t bytes) const;
  // A map of a file about to be read whole (a checksum): has the kernel read all of it ahead at
  // once, rather than a window per fault, so a cold open streams it at the disk's speed.
  void ReadAhead() const;

 private:
  void Release();
  void* data_ = nullptr;
  size_t size_ = 0;
  bool file_ = false;
};

// A file open for reads at any offset (pread), closed with the object.
class ReadOnlyFile {
 public:
  // Throws an I/O error naming path where it cannot be opened.
  explicit ReadOnlyFile(const std::string& path);
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();
  // Reads exactly bytes at offset into out; a short file is an I/O error.
  void ReadAt(uint64_t offset, size_t bytes, void* out) const;

 private:
  std::string path_;
  int fd_;
};

}  // namespace tessera
