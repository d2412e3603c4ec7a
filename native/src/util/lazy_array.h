// A fixed-capacity array of plain values in anonymous memory: zero-filled, each page committed by
// the kernel on first write, so a generous capacity costs address space, not memory.
#pragma once
#include <cstddef>
#include <type_traits>

#include "util/file_util.h"

namespace tessera {

template <typename T>
class LazyArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "zero bytes must be a valid T");

 public:
  LazyArray() = default;
  explicit LazyArray(size_t capacity) : region_(Region::Anonymous(capacity * sizeof(T))) {}

  T* data() const { return static_cast<T*>(region_.data()); }
  // Commits every page now, for an array about to be filled throughout (a hash table's rehash):
  // one call costs ~1 us a page where faulting them in one by one costs ~17 us each on a VM.
  void CommitAll() const { region_.Populate(0, region_.size()); }
  T& operator[](size_t i) const { return data()[i]; }
  size_t capacity() const { return region_.size() / sizeof(T); }

 private:
  Region region_;
};

}  // namespace tessera
