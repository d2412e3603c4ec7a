// A file's CRC32C (the hardware CRC instruction where there is one), alone or as the file is
// copied: how a backup names the content of the files it copies, and how it and a restore prove
// what landed (lib/features/backups).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

struct FileChecksum {
  uint32_t crc32c;
  uint64_t bytes;
};

// The checksum of the file's first `length` bytes (nullopt: all of it). Error(404) when the file
// does not exist, Error(400) when it is shorter than `length`, Error(500) on another failure.
FileChecksum ChecksumFile(const std::string& path, std::optional<uint64_t> length);

// Copies the first `length` bytes of `from` (nullopt: all of it) into `to`, created or emptied,
// in one pass that checksums them, and starts `to`'s write-back without waiting for it: the caller
// makes it durable (SyncFile) a few files later, so the disk writes while the next ones are
// copied. Errors as ChecksumFile's for `from`; Error(507) when `to`'s disk is full; Error(500) on
// another failure.
FileChecksum CopyFileChecksummed(const std::string& from, const std::string& to, std::optional<uint64_t> length);

// Makes a file's data durable (fdatasync): Error(507) when its disk is full, Error(500) otherwise.
void SyncFile(const std::string& path);

}  // namespace tessera
