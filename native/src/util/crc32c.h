// CRC32C (Castagnoli), the checksum of every write-ahead-log record.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {

// Hardware CRC32 instruction where the CPU has it, slicing-by-8 tables otherwise.
uint32_t Crc32c(const void* data, size_t n, uint32_t seed = 0);

}  // namespace tessera
