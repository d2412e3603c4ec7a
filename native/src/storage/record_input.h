// One record of an upsert batch as a segment appends it: its id, encoded attributes, and offsets
// of its vectors in the batch's contiguous float buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct NamedVectorInput {
  std::string name;
  size_t offset;  // into the batch's floats
};

struct RecordInput {
  std::string id;
  int64_t vector_offset = -1;  // into the batch's floats; -1 when the record has no vector
  std::vector<NamedVectorInput> named;
  std::string attrs;  // encoded by AttrEncoder
};

}  // namespace tessera
