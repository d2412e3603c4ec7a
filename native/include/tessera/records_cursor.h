// A records export in pieces: every live record of one collection as a single JSON array.
#pragma once
#include <cstddef>
#include <string>

namespace tessera {

class RecordsCursor {
 public:
  virtual ~RecordsCursor() = default;
  // Appends the next piece (at least one record, about max_bytes) to out; false once exhausted.
  virtual bool Next(size_t max_bytes, std::string* out) = 0;
};

}  // namespace tessera
