// One attribute name's values over a run of rows, laid out column by column (a view: the memory
// belongs to whoever made it, a sealed segment's column file). Per row a type tag (0 when the row
// lacks the name), an 8-byte slot (Int, DateTime and Bool values, a Float's bits, a List's
// element count), and for Str and List a byte range: a Str's bytes, or a List's elements encoded
// as the attribute blob encodes them. A row decodes to the same ValueView the row's blob gives.
// A column of few distinct Str values also codes them: a byte a row, 0 for a row not holding a
// Str, else 1 + its value's rank among them, so equality and order against a Str constant are
// decided by comparing bytes of codes.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

#include "util/value.h"

namespace tessera {

struct AttrColumn {
  std::string_view name;
  uint32_t index = 0;                 // the name's position in its segment: the order names first appear in rows
  const uint8_t* tags = nullptr;      // null: no arrays, each row's blob is read for this name
  const int64_t* slots = nullptr;     // null when no row holds an Int, DateTime, Bool, Float or List
  const uint64_t* offsets = nullptr;  // rows + 1 ascending byte offsets; null when no row holds a Str or List
  const char* bytes = nullptr;
  const uint8_t* codes = nullptr;  // null when the Str values are too many (or none)
  const uint32_t* dict = nullptr;  // per code - 1, the first row holding that value: values ascending
  uint32_t dict_size = 0;

  // At most this many distinct Str values are coded.
  static constexpr uint32_t kMaxCodes = 255;

  bool in_blob() const { return tags == nullptr; }

  // The row's value; false when the row lacks the name. Only for columns with arrays.
  bool Get(uint32_t row, ValueView* v) const {
    uint8_t tag = tags[row];
    if (tag == 0) return false;
    v->tag = ValueTag(tag);
    switch (v->tag) {
      case ValueTag::kInt:
      case ValueTag::kDateTime:
      case ValueTag::kBool: v->i = slots[row]; break;
      case ValueTag::kFloat: std::memcpy(&v->f, &slots[row], sizeof(double)); break;
      case ValueTag::kStr: v->s = Span(row); break;
      case ValueTag::kList:
        v->s = Span(row);
        v->list_size = uint32_t(slots[row]);
        break;
      case ValueTag::kNull: break;
    }
    return true;
  }

  // The bytes of a Str or List row; empty for rows of other types.
  std::string_view Span(uint32_t row) const { return std::string_view(bytes + offsets[row], size_t(offsets[row + 1] - offsets[row])); }

  // With codes: how many coded values order before s (by bytes, as unsigned char), and whether
  // the next one equals s.
  uint32_t CodesBelow(std::string_view s, bool* equal) const {
    uint32_t lo = 0, hi = dict_size;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (Span(dict[mid]).compare(s) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    *equal = lo < dict_size && Span(dict[lo]) == s;
    return lo;
  }
};

}  // namespace tessera
