// Little-endian fixed-width appends and bounds-checked reads for the core's binary formats.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "tessera/error.h"

namespace tessera {

template <typename T>
inline void PutFixed(std::string* out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out->append(buf, sizeof(T));
}

inline void PutBytes(std::string* out, std::string_view s) {
  PutFixed<uint32_t>(out, uint32_t(s.size()));
  out->append(s);
}

// Reads from a byte range, throwing Error(500) instead of running past its end: a CRC-valid log
// record or a checksummed file that still fails to decode is corruption, not caller error.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  template <typename T>
  T Fixed() {
    Need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return v;
  }
  std::string_view Bytes() { return Raw(Fixed<uint32_t>()); }
  std::string_view Raw(size_t n) {
    Need(n);
    std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  bool empty() const { return in_.empty(); }
  std::string_view rest() const { return in_; }

 private:
  void Need(size_t n) const {
    if (in_.size() < n) throw Internal("corrupt store data: record ends early");
  }
  std::string_view in_;
};

}  // namespace tessera
