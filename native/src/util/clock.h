// Monotonic nanoseconds, for the timings a query plan reports and the reads a lazy reader notes.
#pragma once
#include <chrono>
#include <cstdint>

namespace tessera {

inline uint64_t NowNanos() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

}  // namespace tessera
