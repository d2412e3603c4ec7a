// CRC32C (Castagnoli), the checksum of every write-ahead-log record and saved file.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {

class ThreadPool;

// Hardware CRC32 instruction where the CPU has it, slicing-by-8 tables otherwise.
uint32_t Crc32c(const void* data, size_t n, uint32_t seed = 0);

// The same checksum (seed 0), a long buffer's pieces summed on pool's threads (null: the caller's
// alone): verifying a large index file at open takes a fraction of the time on many cores.
uint32_t ParallelCrc32c(const void* data, size_t n, ThreadPool* pool);

}  // namespace tessera
