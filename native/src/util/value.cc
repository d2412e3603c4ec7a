#include "util/value.h"

#include "util/byte_io.h"

namespace tessera {

void AttrEncoder::Put(std::string_view key, std::string encoded) {
  for (Entry& e : entries_) {
    if (e.key == key) {
      e.encoded = std::move(encoded);
      return;
    }
  }
  entries_.push_back({std::string(key), std::move(encoded)});
}

void AttrEncoder::AddFixed(std::string_view key, ValueTag tag, int64_t v) {
  std::string enc(1, char(tag));
  PutFixed<int64_t>(&enc, v);
  Put(key, std::move(enc));
}

void AttrEncoder::AddStr(std::string_view key, std::string_view v) {
  std::string enc(1, char(ValueTag::kStr));
  PutBytes(&enc, v);
  Put(key, std::move(enc));
}

void AttrEncoder::AddBool(std::string_view key, bool v) { Put(key, std::string{char(ValueTag::kBool), char(v ? 1 : 0)}); }

void AttrEncoder::AddFloat(std::string_view key, double v) {
  std::string enc(1, char(ValueTag::kFloat));
  PutFixed<double>(&enc, v);
  Put(key, std::move(enc));
}

void AttrEncoder::AddNull(std::string_view key) { Put(key, std::string(1, char(ValueTag::kNull))); }

void AttrEncoder::AddList(std::string_view key, const std::vector<std::string_view>& items) {
  std::string enc(1, char(ValueTag::kList));
  PutFixed<uint32_t>(&enc, uint32_t(items.size()));
  for (std::string_view item : items) PutBytes(&enc, item);
  Put(key, std::move(enc));
}

void AttrEncoder::Add(std::string_view key, const ValueView& v) {
  switch (v.tag) {
    case ValueTag::kStr: AddStr(key, v.s); break;
    case ValueTag::kInt: AddInt(key, v.i); break;
    case ValueTag::kDateTime: AddDateTime(key, v.i); break;
    case ValueTag::kBool: AddBool(key, v.i != 0); break;
    case ValueTag::kFloat: AddFloat(key, v.f); break;
    case ValueTag::kList: AddList(key, ListElements(v)); break;
    case ValueTag::kNull: AddNull(key); break;
  }
}

std::string AttrEncoder::Finish() {
  if (entries_.empty()) return {};
  std::string out;
  PutFixed<uint32_t>(&out, uint32_t(entries_.size()));
  for (const Entry& e : entries_) {
    PutFixed<uint16_t>(&out, uint16_t(e.key.size()));
    out.append(e.key);
    out.append(e.encoded);
  }
  return out;
}

AttrReader::AttrReader(std::string_view blob) : rest_(blob) {
  if (!rest_.empty()) {
    ByteReader r(rest_);
    remaining_ = r.Fixed<uint32_t>();
    rest_.remove_prefix(4);
  }
}

bool AttrReader::Next(std::string_view* key, ValueView* v) {
  if (remaining_ == 0) return false;
  --remaining_;
  ByteReader r(rest_);
  *key = r.Raw(r.Fixed<uint16_t>());
  v->tag = ValueTag(r.Fixed<uint8_t>());
  switch (v->tag) {
    case ValueTag::kInt:
    case ValueTag::kDateTime: v->i = r.Fixed<int64_t>(); break;
    case ValueTag::kBool: v->i = r.Fixed<uint8_t>(); break;
    case ValueTag::kFloat: v->f = r.Fixed<double>(); break;
    case ValueTag::kStr: v->s = r.Bytes(); break;
    case ValueTag::kNull: break;
    case ValueTag::kList: {
      v->list_size = r.Fixed<uint32_t>();
      const char* begin = r.rest().data();
      for (uint32_t i = 0; i < v->list_size; ++i) r.Bytes();
      v->s = std::string_view(begin, size_t(r.rest().data() - begin));
      break;
    }
    default: throw Internal("corrupt store data: unknown value tag");
  }
  rest_ = r.rest();
  return true;
}

bool FindAttr(std::string_view blob, std::string_view key, ValueView* out) {
  AttrReader reader(blob);
  std::string_view k;
  while (reader.Next(&k, out))
    if (k == key) return true;
  return false;
}

std::string ValueKey(const ValueView& v) {
  std::string key(1, char(v.tag));
  switch (v.tag) {
    case ValueTag::kInt:
    case ValueTag::kDateTime:
    case ValueTag::kBool: PutFixed<int64_t>(&key, v.i); break;
    case ValueTag::kFloat: PutFixed<double>(&key, v.f == 0 ? 0.0 : v.f); break;
    case ValueTag::kStr:
    case ValueTag::kList: key.append(v.s); break;
    case ValueTag::kNull: break;
  }
  return key;
}

std::vector<std::string_view> ListElements(const ValueView& v) {
  std::vector<std::string_view> out;
  out.reserve(v.list_size);
  ByteReader r(v.s);
  for (uint32_t i = 0; i < v.list_size; ++i) out.push_back(r.Bytes());
  return out;
}

void WriteValueJson(JsonWriter& w, const ValueView& v) {
  if (v.tag == ValueTag::kNull) return w.String("Null");
  JsonWriter::Scope value = w.Object();
  switch (v.tag) {
    case ValueTag::kStr: w.Member("Str", v.s); break;
    case ValueTag::kInt: w.Member("Int", v.i); break;
    case ValueTag::kDateTime: w.Member("DateTime", v.i); break;
    case ValueTag::kBool: w.Member("Bool", v.i != 0); break;
    case ValueTag::kFloat: w.Member("Float", v.f); break;
    case ValueTag::kList:
      w.Key("List");
      w.StringArray(ListElements(v));
      break;
    case ValueTag::kNull: break;
  }
}

}  // namespace tessera
