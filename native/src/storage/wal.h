// The write-ahead log: length- and CRC32C-framed records appended to one file. Append() only
// buffers in the OS; Sync() is the durability barrier a group of batches shares.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tessera {

class Wal {
 public:
  Wal() = default;
  ~Wal();
  Wal(const Wal&) = delete;
  Wal& operator=(const Wal&) = delete;

  // Reads every intact record in order from byte offset from; returns the offset after the last
  // one. A torn or corrupt tail ends the log: when truncate is set the file is cut back to the last
  // intact record (a writer's recovery); a reader leaves it (and may read on later from there).
  static uint64_t Replay(const std::string& path, bool truncate, const std::function<void(std::string_view payload)>& fn,
                         uint64_t from = 0);

  void OpenForAppend(const std::string& path);
  void Append(std::string_view payload);
  void Sync();
  // Empties the log after a checkpoint made its contents redundant.
  void Reset();
  // Like Reset, but keeps the contents: the file is renamed to archive and a new one begun.
  void Rotate(const std::string& archive);
  uint64_t bytes() const { return bytes_; }

 private:
  int fd_ = -1;
  uint64_t bytes_ = 0;
  std::string path_;
};

}  // namespace tessera
