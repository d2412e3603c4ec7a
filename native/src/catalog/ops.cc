#include "catalog/ops.h"

#include <cstring>
#include <type_traits>

#include "tessera/error.h"
#include "util/byte_io.h"
#include "util/fields_of.h"

namespace tessera {
namespace {

// Members the codec spells specially: the batch's float buffer (set before its records), a
// vector by its offset in it, an optional vector (u8 flag first), and two flags in one byte. V is
// const when writing.
template <typename V>
struct Floats {
  V& floats;
};
template <typename V>
struct VectorAt {
  V& offset;
};
template <typename V>
struct OptionalVectorAt {
  V& offset;  // -1: absent
};
template <typename V>
struct TwoFlags {
  V& first;
  V& second;
};

template <typename A, typename F>
void Fields(A& a, F& f);

// Appends an op's fields in log order. Strings and lists are u32-length-prefixed; vectors are
// `dim` raw floats taken from the batch's contiguous buffer.
class LogWriter {
 public:
  LogWriter(std::string* out, uint32_t dim) : out_(out), dim_(dim) {}

  template <typename T, typename... Rest>
  void operator()(const T& first, const Rest&... rest) {
    Put(first);
    (Put(rest), ...);
  }

 private:
  void Put(const std::string& s) { PutBytes(out_, s); }
  void Put(bool v) { PutFixed<uint8_t>(out_, v ? 1 : 0); }
  template <typename T>
  requires std::is_arithmetic_v<T>
  void Put(T v) { PutFixed(out_, v); }
  template <typename T>
  void Put(const std::vector<T>& items) {
    PutFixed<uint32_t>(out_, uint32_t(items.size()));
    for (const T& item : items) Put(item);
  }
  void Put(const std::map<std::string, std::string>& map) {
    PutFixed<uint32_t>(out_, uint32_t(map.size()));
    for (const auto& [k, v] : map) (*this)(k, v);
  }
  void Put(Floats<const std::vector<float>> f) { floats_ = &f.floats; }
  void Put(VectorAt<const size_t> v) {
    out_->append(reinterpret_cast<const char*>(floats_->data() + v.offset), size_t(dim_) * sizeof(float));
  }
  void Put(OptionalVectorAt<const int64_t> v) {
    Put(v.offset >= 0);
    if (v.offset >= 0) Put(VectorAt<const size_t>{size_t(v.offset)});
  }
  void Put(TwoFlags<const bool> f) { PutFixed<uint8_t>(out_, uint8_t((f.first ? 1 : 0) | (f.second ? 2 : 0))); }
  template <typename S>
  requires std::is_class_v<S>
  void Put(const S& s) { Fields(*this, s); }

  std::string* out_;
  uint32_t dim_;
  const std::vector<float>* floats_ = nullptr;
};

// Reads what LogWriter wrote, into the same fields.
class LogReader {
 public:
  LogReader(std::string_view bytes, uint32_t dim) : r_(bytes), dim_(dim) {}

  template <typename T, typename... Rest>
  void operator()(T&& first, Rest&&... rest) {
    Get(first);
    (Get(rest), ...);
  }
  uint8_t Tag() { return r_.Fixed<uint8_t>(); }

 private:
  void Get(std::string& s) { s = std::string(r_.Bytes()); }
  void Get(bool& v) { v = r_.Fixed<uint8_t>() != 0; }
  template <typename T>
  requires std::is_arithmetic_v<T>
  void Get(T& v) { v = r_.Fixed<T>(); }
  template <typename T>
  void Get(std::vector<T>& items) {
    items.resize(r_.Fixed<uint32_t>());
    for (T& item : items) Get(item);
  }
  void Get(std::map<std::string, std::string>& map) {
    for (uint32_t n = r_.Fixed<uint32_t>(); n > 0; --n) {
      std::string k(r_.Bytes());
      map[k] = std::string(r_.Bytes());
    }
  }
  void Get(Floats<std::vector<float>> f) { floats_ = &f.floats; }
  void Get(VectorAt<size_t> v) {
    v.offset = floats_->size();
    std::string_view raw = r_.Raw(size_t(dim_) * sizeof(float));
    floats_->resize(v.offset + dim_);
    std::memcpy(floats_->data() + v.offset, raw.data(), raw.size());
  }
  void Get(OptionalVectorAt<int64_t> v) {
    v.offset = -1;
    if (r_.Fixed<uint8_t>() == 0) return;
    size_t at = 0;
    Get(VectorAt<size_t>{at});
    v.offset = int64_t(at);
  }
  void Get(TwoFlags<bool> f) {
    uint8_t flags = r_.Fixed<uint8_t>();
    f.first = flags & 1;
    f.second = flags & 2;
  }
  template <typename S>
  requires std::is_class_v<S>
  void Get(S& s) { Fields(*this, s); }

  ByteReader r_;
  uint32_t dim_;
  std::vector<float>* floats_ = nullptr;
};

// Every op's layout in the log, one line each, written and read by the same description. A is
// LogWriter (F const) or LogReader.
template <typename A, typename F>
void Fields(A& a, F& f) {
  if constexpr (FieldsOf<F, CreateCollectionOp> || FieldsOf<F, DropCollectionOp> || FieldsOf<F, DropAliasOp>)
    a(f.name);
  else if constexpr (FieldsOf<F, PutMetaOp>)
    a(f.name, f.meta);
  else if constexpr (FieldsOf<F, SetVectorNamesOp>)
    a(f.name, f.names);
  else if constexpr (FieldsOf<F, PutAliasOp>)
    a(f.name, f.target);
  else if constexpr (FieldsOf<F, SetFilterIndexOp> || FieldsOf<F, SetFtsSchemaOp>)
    a(f.name, f.fields);
  else if constexpr (FieldsOf<F, DeleteOp>)
    a(f.collection, f.ids);
  else if constexpr (FieldsOf<F, UpsertOp>)
    a(f.collection, Floats{f.floats}, f.records);
  else if constexpr (FieldsOf<F, RecordInput>)
    a(f.id, OptionalVectorAt{f.vector_offset}, f.named, f.attrs);
  else if constexpr (FieldsOf<F, NamedVectorInput>)
    a(f.name, VectorAt{f.offset});
  else if constexpr (FieldsOf<F, FilterIndexField>)
    a(f.field, TwoFlags{f.tokens, f.trigrams});
  else if constexpr (FieldsOf<F, FtsField>)
    a(f.field, f.k1, f.b, f.ascii_folding, f.max_token_len);
  else
    static_assert(!sizeof(F), "every op member type needs a layout here");
}

// The op of variant index `index`, read from r.
template <size_t I = 0>
Op DecodeAlternative(size_t index, LogReader& r) {
  if constexpr (I < std::variant_size_v<Op>) {
    if (index != I) return DecodeAlternative<I + 1>(index, r);
    std::variant_alternative_t<I, Op> op;
    Fields(r, op);
    return op;
  } else {
    throw Internal("corrupt write-ahead log: unknown operation");
  }
}

}  // namespace

void AppendOp(const Op& op, uint32_t dim, std::string* out) {
  LogWriter w(out, dim);
  PutFixed<uint8_t>(out, uint8_t(op.index() + 1));
  std::visit([&](const auto& o) { Fields(w, o); }, op);
}

Op DecodeOp(std::string_view bytes, uint32_t dim) {
  LogReader r(bytes, dim);
  uint8_t tag = r.Tag();
  if (tag == 0) throw Internal("corrupt write-ahead log: unknown operation");
  return DecodeAlternative(size_t(tag - 1), r);
}

}  // namespace tessera
