// CRC32C: the standard check value, a checksum continued from a seed equal to one taken at once, and
// a long buffer's checksum shared out over a pool's threads equal to the one computed alone, for
// lengths on and around the pieces it is split into.
#include "util/crc32c.h"

#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "util/thread_pool.h"

using tessera::Crc32c;
using tessera::ParallelCrc32c;
using tessera::ThreadPool;
using tessera::test::Check;

namespace {

constexpr size_t kPiece = size_t(4) << 20;  // util/crc32c.cc's piece length

std::vector<uint8_t> Bytes(size_t n) {
  std::vector<uint8_t> bytes(n);
  uint32_t x = 2463534242u;
  for (uint8_t& b : bytes) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = uint8_t(x);
  }
  return bytes;
}

void MatchesTheStandardCheckValue() { Check(Crc32c("123456789", 9) == 0xE3069283u, "CRC32C of \"123456789\" is 0xE3069283"); }

void ContinuesFromASeed() {
  std::vector<uint8_t> bytes = Bytes(100'003);
  for (size_t split : {size_t(0), size_t(1), size_t(7), size_t(24'576), size_t(50'000), bytes.size()}) {
    uint32_t first = Crc32c(bytes.data(), split);
    Check(Crc32c(bytes.data() + split, bytes.size() - split, first) == Crc32c(bytes.data(), bytes.size()),
          "the checksum continued at " + std::to_string(split) + " is the whole's");
  }
}

void SharedOverAPoolEqualsTheOneTakenAlone() {
  std::vector<uint8_t> bytes = Bytes(5 * kPiece + 12'345);
  for (size_t threads : {size_t(1), size_t(2), size_t(3)}) {
    ThreadPool pool(threads);
    for (size_t n : {size_t(0), size_t(1), 2 * kPiece - 1, 2 * kPiece, 2 * kPiece + 1, 3 * kPiece + 8, bytes.size()})
      Check(ParallelCrc32c(bytes.data(), n, &pool) == Crc32c(bytes.data(), n),
            std::to_string(n) + " bytes on " + std::to_string(threads) + " threads: the checksum taken alone");
  }
}

void SharedOverAPoolSeesEveryByte() {
  std::vector<uint8_t> bytes = Bytes(3 * kPiece + 100);
  ThreadPool pool(2);
  uint32_t clean = ParallelCrc32c(bytes.data(), bytes.size(), &pool);
  for (size_t at : {size_t(0), kPiece - 1, kPiece, 2 * kPiece + 17, 3 * kPiece + 99}) {
    bytes[at] ^= 0x10;
    Check(ParallelCrc32c(bytes.data(), bytes.size(), &pool) != clean, "a bit flipped at " + std::to_string(at) + " changes the checksum");
    bytes[at] ^= 0x10;
  }
}

}  // namespace

int main() {
  MatchesTheStandardCheckValue();
  ContinuesFromASeed();
  SharedOverAPoolEqualsTheOneTakenAlone();
  SharedOverAPoolSeesEveryByte();
  return tessera::test::Report();
}
