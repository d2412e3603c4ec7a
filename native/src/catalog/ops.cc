#include "catalog/ops.h"

#include "util/byte_io.h"
#include "tessera/error.h"

namespace tessera {
namespace {

enum class OpTag : uint8_t {
  kCreateCollection = 1,
  kDropCollection,
  kPutMeta,
  kSetVectorNames,
  kPutAlias,
  kDropAlias,
  kUpsert,
  kDelete,
  kSetFilterIndex,
  kSetFtsSchema,
};

void PutStrings(std::string* out, const std::vector<std::string>& items) {
  PutFixed<uint32_t>(out, uint32_t(items.size()));
  for (const std::string& s : items) PutBytes(out, s);
}

std::vector<std::string> GetStrings(ByteReader& r) {
  std::vector<std::string> out(r.Fixed<uint32_t>());
  for (std::string& s : out) s = std::string(r.Bytes());
  return out;
}

void PutVector(std::string* out, const std::vector<float>& floats, size_t offset, uint32_t dim) {
  out->append(reinterpret_cast<const char*>(floats.data() + offset), size_t(dim) * sizeof(float));
}

size_t GetVector(ByteReader& r, std::vector<float>* floats, uint32_t dim) {
  size_t offset = floats->size();
  std::string_view raw = r.Raw(size_t(dim) * sizeof(float));
  floats->resize(offset + dim);
  std::memcpy(floats->data() + offset, raw.data(), raw.size());
  return offset;
}

struct Encoder {
  std::string* out;
  uint32_t dim;
  void operator()(const CreateCollectionOp& op) {
    PutFixed(out, OpTag::kCreateCollection);
    PutBytes(out, op.name);
  }
  void operator()(const DropCollectionOp& op) {
    PutFixed(out, OpTag::kDropCollection);
    PutBytes(out, op.name);
  }
  void operator()(const PutMetaOp& op) {
    PutFixed(out, OpTag::kPutMeta);
    PutBytes(out, op.name);
    PutFixed<uint32_t>(out, uint32_t(op.meta.size()));
    for (const auto& [k, v] : op.meta) {
      PutBytes(out, k);
      PutBytes(out, v);
    }
  }
  void operator()(const SetVectorNamesOp& op) {
    PutFixed(out, OpTag::kSetVectorNames);
    PutBytes(out, op.name);
    PutStrings(out, op.names);
  }
  void operator()(const PutAliasOp& op) {
    PutFixed(out, OpTag::kPutAlias);
    PutBytes(out, op.name);
    PutBytes(out, op.target);
  }
  void operator()(const DropAliasOp& op) {
    PutFixed(out, OpTag::kDropAlias);
    PutBytes(out, op.name);
  }
  void operator()(const UpsertOp& op) {
    PutFixed(out, OpTag::kUpsert);
    PutBytes(out, op.collection);
    PutFixed<uint32_t>(out, uint32_t(op.records.size()));
    for (const RecordInput& rec : op.records) {
      PutBytes(out, rec.id);
      PutFixed<uint8_t>(out, rec.vector_offset >= 0 ? 1 : 0);
      if (rec.vector_offset >= 0) PutVector(out, op.floats, size_t(rec.vector_offset), dim);
      PutFixed<uint32_t>(out, uint32_t(rec.named.size()));
      for (const NamedVectorInput& nv : rec.named) {
        PutBytes(out, nv.name);
        PutVector(out, op.floats, nv.offset, dim);
      }
      PutBytes(out, rec.attrs);
    }
  }
  void operator()(const SetFilterIndexOp& op) {
    PutFixed(out, OpTag::kSetFilterIndex);
    PutBytes(out, op.name);
    PutFixed<uint32_t>(out, uint32_t(op.fields.size()));
    for (const FilterIndexField& f : op.fields) {
      PutBytes(out, f.field);
      PutFixed<uint8_t>(out, uint8_t((f.tokens ? 1 : 0) | (f.trigrams ? 2 : 0)));
    }
  }
  void operator()(const SetFtsSchemaOp& op) {
    PutFixed(out, OpTag::kSetFtsSchema);
    PutBytes(out, op.name);
    PutFixed<uint32_t>(out, uint32_t(op.fields.size()));
    for (const FtsField& f : op.fields) {
      PutBytes(out, f.field);
      PutFixed(out, f.k1);
      PutFixed(out, f.b);
      PutFixed<uint8_t>(out, f.ascii_folding ? 1 : 0);
      PutFixed(out, f.max_token_len);
    }
  }
  void operator()(const DeleteOp& op) {
    PutFixed(out, OpTag::kDelete);
    PutBytes(out, op.collection);
    PutStrings(out, op.ids);
  }
};

}  // namespace

std::string EncodeOp(const Op& op, uint32_t dim) {
  std::string out;
  std::visit(Encoder{&out, dim}, op);
  return out;
}

Op DecodeOp(std::string_view bytes, uint32_t dim) {
  ByteReader r(bytes);
  auto tag = r.Fixed<OpTag>();
  switch (tag) {
    case OpTag::kCreateCollection: return CreateCollectionOp{std::string(r.Bytes())};
    case OpTag::kDropCollection: return DropCollectionOp{std::string(r.Bytes())};
    case OpTag::kPutMeta: {
      PutMetaOp op{std::string(r.Bytes()), {}};
      uint32_t n = r.Fixed<uint32_t>();
      for (uint32_t i = 0; i < n; ++i) {
        std::string k(r.Bytes());
        op.meta[k] = std::string(r.Bytes());
      }
      return op;
    }
    case OpTag::kSetVectorNames: {
      SetVectorNamesOp op{std::string(r.Bytes()), {}};
      op.names = GetStrings(r);
      return op;
    }
    case OpTag::kPutAlias: {
      PutAliasOp op{std::string(r.Bytes()), {}};
      op.target = std::string(r.Bytes());
      return op;
    }
    case OpTag::kDropAlias: return DropAliasOp{std::string(r.Bytes())};
    case OpTag::kUpsert: {
      UpsertOp op;
      op.collection = std::string(r.Bytes());
      op.records.resize(r.Fixed<uint32_t>());
      for (RecordInput& rec : op.records) {
        rec.id = std::string(r.Bytes());
        if (r.Fixed<uint8_t>()) rec.vector_offset = int64_t(GetVector(r, &op.floats, dim));
        rec.named.resize(r.Fixed<uint32_t>());
        for (NamedVectorInput& nv : rec.named) {
          nv.name = std::string(r.Bytes());
          nv.offset = GetVector(r, &op.floats, dim);
        }
        rec.attrs = std::string(r.Bytes());
      }
      return op;
    }
    case OpTag::kSetFilterIndex: {
      SetFilterIndexOp op{std::string(r.Bytes()), {}};
      op.fields.resize(r.Fixed<uint32_t>());
      for (FilterIndexField& f : op.fields) {
        f.field = std::string(r.Bytes());
        uint8_t flags = r.Fixed<uint8_t>();
        f.tokens = flags & 1;
        f.trigrams = flags & 2;
      }
      return op;
    }
    case OpTag::kSetFtsSchema: {
      SetFtsSchemaOp op{std::string(r.Bytes()), {}};
      op.fields.resize(r.Fixed<uint32_t>());
      for (FtsField& f : op.fields) {
        f.field = std::string(r.Bytes());
        f.k1 = r.Fixed<double>();
        f.b = r.Fixed<double>();
        f.ascii_folding = r.Fixed<uint8_t>() != 0;
        f.max_token_len = r.Fixed<uint32_t>();
      }
      return op;
    }
    case OpTag::kDelete: {
      DeleteOp op;
      op.collection = std::string(r.Bytes());
      op.ids = GetStrings(r);
      return op;
    }
  }
  throw Internal("corrupt write-ahead log: unknown operation");
}

}  // namespace tessera
