// Mutations as the write-ahead log records them. Live writes and recovery apply the same decoded
// Op, so replay cannot drift from what was acknowledged.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analysis/fts_field.h"
#include "index/filter_index_field.h"
#include "storage/record_input.h"

namespace tessera {

struct CreateCollectionOp {
  std::string name;
};
struct DropCollectionOp {
  std::string name;
};
struct PutMetaOp {
  std::string name;
  std::map<std::string, std::string> meta;
};
struct SetVectorNamesOp {
  std::string name;
  std::vector<std::string> names;
};
struct SetFilterIndexOp {
  std::string name;
  std::vector<FilterIndexField> fields;
};
struct SetFtsSchemaOp {
  std::string name;
  std::vector<FtsField> fields;
};
struct PutAliasOp {
  std::string name;
  std::string target;
};
struct DropAliasOp {
  std::string name;
};
struct UpsertOp {
  std::string collection;
  std::vector<RecordInput> records;
  std::vector<float> floats;  // every vector of the batch, contiguous
};
struct DeleteOp {
  std::string collection;
  std::vector<std::string> ids;
};

// The log tags an op by its place in this list (1-based): append new ops, never reorder.
using Op = std::variant<CreateCollectionOp, DropCollectionOp, PutMetaOp, SetVectorNamesOp, PutAliasOp, DropAliasOp, UpsertOp, DeleteOp,
                        SetFilterIndexOp, SetFtsSchemaOp>;

// Appends op's log record to out.
void AppendOp(const Op& op, uint32_t dim, std::string* out);
// Throws Error(500) when the bytes are not a well-formed op (a CRC-valid record never is).
Op DecodeOp(std::string_view bytes, uint32_t dim);

}  // namespace tessera
