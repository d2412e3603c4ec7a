// Software prefetch of whole rows. A walk or a rescore reads rows at random, and the hardware
// prefetcher only follows a row after its first misses, so each row is asked for, every cache
// line of it, before it is read: the misses then overlap instead of queueing one after another.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tessera {

inline void PrefetchBytes(const void* p, size_t bytes) {
  constexpr uintptr_t kLine = 64;
  uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(kLine - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  for (uintptr_t line = first; line < end; line += kLine) __builtin_prefetch(reinterpret_cast<const void*>(line));
}

}  // namespace tessera
