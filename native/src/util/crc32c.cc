#include "util/crc32c.h"

#include <array>
#include <cstring>
#include <vector>

#include "util/thread_pool.h"

namespace tessera {
namespace {

// Slicing-by-8 tables for the reflected Castagnoli polynomial.
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t;
  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  }
};

const Tables& T() {
  static const Tables tables;
  return tables;
}

// Advancing a raw CRC register (no inversions) over `bytes` zero bytes: a linear map over GF(2),
// kept as four byte-indexed tables built from the images of the 32 one-bit registers. The raw
// register of A then B is Shift|B|(register of A) ^ (register of B from 0).
struct ZeroShift {
  std::array<std::array<uint32_t, 256>, 4> t;
  explicit ZeroShift(size_t bytes) {
    Tabulate([bytes](uint32_t c) {
      for (size_t b = 0; b < bytes; ++b) c = T().t[0][c & 0xFF] ^ (c >> 8);
      return c;
    });
  }
  // step applied `times` times: a long shift from a short one without walking every byte.
  ZeroShift(const ZeroShift& step, size_t times) {
    Tabulate([&step, times](uint32_t c) {
      for (size_t i = 0; i < times; ++i) c = step(c);
      return c;
    });
  }
  uint32_t operator()(uint32_t c) const { return t[0][c & 0xFF] ^ t[1][(c >> 8) & 0xFF] ^ t[2][(c >> 16) & 0xFF] ^ t[3][c >> 24]; }

 private:
  template <typename Map>
  void Tabulate(Map map) {
    std::array<uint32_t, 32> basis;
    for (int i = 0; i < 32; ++i) basis[i] = map(uint32_t(1) << i);
    for (int k = 0; k < 4; ++k)
      for (uint32_t v = 0; v < 256; ++v) {
        uint32_t image = 0;
        for (int bit = 0; bit < 8; ++bit)
          if ((v >> bit) & 1) image ^= basis[8 * k + bit];
        t[k][v] = image;
      }
  }
};

#if defined(__x86_64__)
// Bytes each of three interleaved streams takes per round of the hardware loop. The crc32
// instruction's latency is three times its issue rate, so one stream leaves two thirds of it idle.
constexpr size_t kStride = 8192;

inline uint64_t Load64(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// The SSE4.2 crc32 instruction computes CRC32C about ten times faster than the tables, and three
// streams at once (long buffers) three times faster again.
__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(const uint8_t* p, size_t n, uint32_t seed) {
  static const ZeroShift shift(kStride);
  uint64_t c = ~seed;
  for (; n >= 3 * kStride; n -= 3 * kStride, p += 3 * kStride) {
    uint64_t c1 = 0, c2 = 0;
    for (size_t i = 0; i < kStride; i += 8) {
      c = __builtin_ia32_crc32di(c, Load64(p + i));
      c1 = __builtin_ia32_crc32di(c1, Load64(p + kStride + i));
      c2 = __builtin_ia32_crc32di(c2, Load64(p + 2 * kStride + i));
    }
    c = shift(uint32_t(shift(uint32_t(c)) ^ uint32_t(c1))) ^ uint32_t(c2);
  }
  for (; n >= 8; n -= 8, p += 8) c = __builtin_ia32_crc32di(c, Load64(p));
  uint32_t c32 = uint32_t(c);
  for (; n > 0; --n) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return ~c32;
}

#endif

uint32_t Crc32cSoftware(const void* data, size_t n, uint32_t seed) {
  const auto& t = T().t;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~seed;
  while (n >= 8) {
    uint32_t lo = c ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^
        t[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n--) c = t[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
// Checked once against the standard check value and against the tables over a buffer long enough
// for the interleaved loop, so a miscompiled path falls back, not corrupts.
bool HasHardwareCrc() {
  static const bool ok = [] {
    if (!__builtin_cpu_supports("sse4.2")) return false;
    if (Crc32cHardware(reinterpret_cast<const uint8_t*>("123456789"), 9, 0) != 0xE3069283u ||
        Crc32cSoftware("123456789", 9, 0) != 0xE3069283u)
      return false;
    std::vector<uint8_t> long_buffer(3 * kStride * 2 + 13);
    uint32_t x = 12345;
    for (uint8_t& b : long_buffer) b = uint8_t((x = x * 1103515245u + 12345u) >> 16);
    return Crc32cHardware(long_buffer.data(), long_buffer.size(), 7) == Crc32cSoftware(long_buffer.data(), long_buffer.size(), 7);
  }();
  return ok;
}
#endif

}  // namespace

uint32_t Crc32c(const void* data, size_t n, uint32_t seed) {
#if defined(__x86_64__)
  if (HasHardwareCrc()) return Crc32cHardware(static_cast<const uint8_t*>(data), n, seed);
#endif
  return Crc32cSoftware(data, n, seed);
}

uint32_t ParallelCrc32c(const void* data, size_t n, ThreadPool* pool) {
  // Pieces long enough that combining them costs nothing next to their bytes, short enough that
  // every thread gets several of a file worth splitting.
  constexpr size_t kPieceBytes = size_t(4) << 20;
  constexpr size_t kShiftBytes = 8192;
  size_t pieces = n / kPieceBytes;
  if (pool == nullptr || pool->size() < 2 || pieces < 2) return Crc32c(data, n);
  const auto* p = static_cast<const uint8_t*>(data);
  // Raw registers: the first piece's from the usual initial value, the others' from zero.
  std::vector<uint32_t> raw(pieces);
  pool->ParallelFor(pieces, [&](size_t i) { raw[i] = ~Crc32c(p + i * kPieceBytes, kPieceBytes, i == 0 ? 0 : ~uint32_t(0)); });
  static const ZeroShift piece_shift(ZeroShift(kShiftBytes), kPieceBytes / kShiftBytes);
  uint32_t c = raw[0];
  for (size_t i = 1; i < pieces; ++i) c = piece_shift(c) ^ raw[i];
  return Crc32c(p + pieces * kPieceBytes, n - pieces * kPieceBytes, ~c);
}

}  // namespace tessera
