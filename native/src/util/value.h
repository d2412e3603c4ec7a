// Typed attribute values and their compact binary encoding. A record's attributes are stored as
// one encoded blob: u32 count, then per entry u16 key length, key bytes, u8 tag, payload.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/json_writer.h"

namespace tessera {

enum class ValueTag : uint8_t { kStr = 1, kInt = 2, kBool = 3, kList = 4, kFloat = 5, kDateTime = 6, kNull = 7 };

// A decoded value viewing the blob it came from.
struct ValueView {
  ValueTag tag;
  int64_t i = 0;       // Int, DateTime, Bool (0/1)
  double f = 0;        // Float
  std::string_view s;  // Str; for List the raw list payload (see ListElements)
  uint32_t list_size = 0;
};

// Builds an attribute blob entry by entry, in place in the buffer Finish hands out; one encoder
// serves every record of an upsert, its entry index kept and each blob sized like the last.
class AttrEncoder {
 public:
  void AddStr(std::string_view key, std::string_view v);
  void AddInt(std::string_view key, int64_t v) { AddFixed(key, ValueTag::kInt, v); }
  void AddDateTime(std::string_view key, int64_t v) { AddFixed(key, ValueTag::kDateTime, v); }
  void AddBool(std::string_view key, bool v);
  void AddFloat(std::string_view key, double v);
  void AddNull(std::string_view key);
  void AddList(std::string_view key, const std::vector<std::string_view>& items);
  // A value read from another blob, whatever its type.
  void Add(std::string_view key, const ValueView& v);
  // The blob; the encoder is empty again after. An entry whose key is already there replaces that
  // entry's value, where it stands (JSON's last-one-wins).
  std::string Finish();

 private:
  struct Entry {
    size_t at;   // of its key length in blob_
    size_t end;  // past its value
  };
  // Starts key's entry (key and tag); the caller appends the payload, then Close.
  void Open(std::string_view key, ValueTag tag);
  void Close();
  std::string_view KeyAt(size_t at) const;
  void AddFixed(std::string_view key, ValueTag tag, int64_t v);
  std::string blob_;  // room for the count, then the entries so far
  std::vector<Entry> entries_;
  size_t last_size_ = 0;  // of the blob Finish gave last: the next record's are likely alike
  size_t open_ = 0;       // where the entry being written starts
};

// Iterates an attribute blob.
class AttrReader {
 public:
  explicit AttrReader(std::string_view blob);
  bool Next(std::string_view* key, ValueView* value);

 private:
  std::string_view rest_;
  uint32_t remaining_ = 0;
};

// Finds key in an attribute blob; false when the record lacks it.
bool FindAttr(std::string_view blob, std::string_view key, ValueView* out);

// Canonical bytes of a value for grouping and equality (0.0 and -0.0 share one key). Never empty.
std::string ValueKey(const ValueView& v);

// Elements of a List value.
std::vector<std::string_view> ListElements(const ValueView& v);

// Writes one value in the spec's wire form ({"Int": 5}, "Null", ...).
void WriteValueJson(JsonWriter& w, const ValueView& v);

// Writes an attribute blob as a JSON object of the keys keep(key) accepts.
template <typename Keep>
void WriteAttrsJson(JsonWriter& w, std::string_view blob, Keep&& keep) {
  JsonWriter::Scope object = w.Object();
  AttrReader reader(blob);
  std::string_view key;
  ValueView value;
  while (reader.Next(&key, &value)) {
    if (!keep(key)) continue;
    w.Key(key);
    WriteValueJson(w, value);
  }
}

}  // namespace tessera
