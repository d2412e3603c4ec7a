// Monotonic time, for the timings a query plan reports and the uses a collection cache notes.
#pragma once
#include <chrono>
#include <cstdint>

namespace tessera {

inline uint64_t NowNanos() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

inline int64_t NowMicros() { return int64_t(NowNanos() / 1000); }

}  // namespace tessera
