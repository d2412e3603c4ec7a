// The bodies of files derived from segments: scalars and arrays back to back. An array is its
// element count (u64), then its elements at the next 8-byte aligned file offset, so a reader views
// them in place in a mapped file. A structure names its members once, in order, in a static
// Layout(a, self) (self const or not); BlockWriter walks it to save the structure and BlockReader
// to view a saved one. Members may be arithmetic scalars, Columns, vectors of structures, or
// structures with a Layout of their own.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tessera/error.h"
#include "util/byte_io.h"
#include "util/column.h"

namespace tessera {

// Offsets of arrays are multiples of this in the file (a mapping starts on a page).
constexpr size_t kBlockAlign = 8;

class BlockWriter {
 public:
  // Appends to out, whose first byte is the file's first byte.
  explicit BlockWriter(std::string* out) : out_(out) {}

  template <typename... Members>
  void operator()(const Members&... members) {
    (Put(members), ...);
  }

 private:
  template <typename T>
  void Put(const T& v) {
    if constexpr (std::is_arithmetic_v<T>) {
      PutFixed<T>(out_, v);
    } else {
      T::Layout(*this, v);
    }
  }
  template <typename T>
  void Put(const Column<T>& c) {
    PutFixed<uint64_t>(out_, c.size());
    out_->resize((out_->size() + kBlockAlign - 1) / kBlockAlign * kBlockAlign, '\0');
    out_->append(reinterpret_cast<const char*>(c.data()), c.size() * sizeof(T));
  }
  template <typename T>
  void Put(const std::vector<T>& items) {
    PutFixed<uint64_t>(out_, items.size());
    for (const T& item : items) Put(item);
  }

  std::string* out_;
};

// Views what a BlockWriter wrote; throws Error(500) rather than read past the block (a file whose
// CRC matched but whose layout does not is corruption, and its opener rebuilds).
class BlockReader {
 public:
  // file is the whole mapped file, read from offset on; views keep backing alive.
  BlockReader(std::string_view file, size_t offset, std::shared_ptr<const void> backing)
      : file_(file), pos_(offset), backing_(std::move(backing)) {}

  template <typename... Members>
  void operator()(Members&... members) {
    (Get(members), ...);
  }
  bool done() const { return pos_ == file_.size(); }

 private:
  [[noreturn]] static void Corrupt() { throw Internal("corrupt derived file: its layout runs past its end"); }
  template <typename T>
  void Get(T& v) {
    if constexpr (std::is_arithmetic_v<T>) {
      if (file_.size() - pos_ < sizeof(T)) Corrupt();
      std::memcpy(&v, file_.data() + pos_, sizeof(T));
      pos_ += sizeof(T);
    } else {
      T::Layout(*this, v);
    }
  }
  template <typename T>
  void Get(Column<T>& c) {
    uint64_t n = 0;
    Get(n);
    pos_ = (pos_ + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
    if (pos_ > file_.size() || n > (file_.size() - pos_) / sizeof(T)) Corrupt();
    c = Column<T>::View(reinterpret_cast<const T*>(file_.data() + pos_), size_t(n), backing_);
    pos_ += size_t(n) * sizeof(T);
  }
  template <typename T>
  void Get(std::vector<T>& items) {
    uint64_t n = 0;
    Get(n);
    if (n > file_.size() - pos_) Corrupt();  // every item takes a byte at least
    items.clear();
    items.resize(size_t(n));
    for (T& item : items) Get(item);
  }

  std::string_view file_;
  size_t pos_;
  std::shared_ptr<const void> backing_;
};

}  // namespace tessera
