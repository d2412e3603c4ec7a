#include "util/value.h"

#include <cstring>
#include <utility>

#include "util/byte_io.h"

namespace tessera {

void AttrEncoder::Open(std::string_view key, ValueTag tag) {
  if (blob_.empty()) {
    blob_.reserve(last_size_);
    blob_.resize(sizeof(uint32_t));
  }
  open_ = blob_.size();
  PutFixed<uint16_t>(&blob_, uint16_t(key.size()));
  blob_.append(key);
  blob_.push_back(char(tag));
}

std::string_view AttrEncoder::KeyAt(size_t at) const {
  uint16_t len;
  std::memcpy(&len, blob_.data() + at, sizeof len);
  return std::string_view(blob_).substr(at + sizeof len, len);
}

void AttrEncoder::Close() {
  std::string_view key = KeyAt(open_);
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (KeyAt(entries_[i].at) != key) continue;
    size_t head = sizeof(uint16_t) + key.size();  // the key, then the value (tag first)
    std::string value = blob_.substr(open_ + head);
    blob_.resize(open_);
    size_t from = entries_[i].at + head, old_size = entries_[i].end - from;
    blob_.replace(from, old_size, value);
    entries_[i].end = from + value.size();
    for (size_t j = i + 1; j < entries_.size(); ++j) {
      entries_[j].at = entries_[j].at + value.size() - old_size;
      entries_[j].end = entries_[j].end + value.size() - old_size;
    }
    return;
  }
  entries_.push_back({open_, blob_.size()});
}

void AttrEncoder::AddFixed(std::string_view key, ValueTag tag, int64_t v) {
  Open(key, tag);
  PutFixed<int64_t>(&blob_, v);
  Close();
}

void AttrEncoder::AddStr(std::string_view key, std::string_view v) {
  Open(key, ValueTag::kStr);
  PutBytes(&blob_, v);
  Close();
}

void AttrEncoder::AddBool(std::string_view key, bool v) {
  Open(key, ValueTag::kBool);
  blob_.push_back(char(v ? 1 : 0));
  Close();
}

void AttrEncoder::AddFloat(std::string_view key, double v) {
  Open(key, ValueTag::kFloat);
  PutFixed<double>(&blob_, v);
  Close();
}

void AttrEncoder::AddNull(std::string_view key) {
  Open(key, ValueTag::kNull);
  Close();
}

void AttrEncoder::AddList(std::string_view key, const std::vector<std::string_view>& items) {
  Open(key, ValueTag::kList);
  PutFixed<uint32_t>(&blob_, uint32_t(items.size()));
  for (std::string_view item : items) PutBytes(&blob_, item);
  Close();
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
  uint32_t count = uint32_t(entries_.size());
  std::memcpy(blob_.data(), &count, sizeof count);
  entries_.clear();
  last_size_ = blob_.size();
  return std::exchange(blob_, std::string());
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
