// Read-only arrays that either own their elements (a structure built in memory) or view them in a
// mapped file, whose mapping they keep alive. A structure derived from a segment holds its arrays
// as columns, so one type serves a fresh build and a saved file opened without copying.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/error.h"

namespace tessera {

template <typename T>
class Column {
 public:
  Column() = default;
  // A build hands its vectors over.
  Column(std::vector<T> owned) : owned_(std::move(owned)), data_(owned_.data()), size_(owned_.size()) {}
  // size elements at data, valid while backing lives.
  static Column View(const T* data, size_t size, std::shared_ptr<const void> backing) {
    Column c;
    c.backing_ = std::move(backing);
    c.data_ = data;
    c.size_ = size;
    return c;
  }
  // A moved vector keeps its buffer, so data_ stays valid; copies would be silent and large.
  Column(Column&& o) noexcept { *this = std::move(o); }
  Column& operator=(Column&& o) noexcept {
    owned_ = std::move(o.owned_);
    backing_ = std::move(o.backing_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;

  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& back() const { return data_[size_ - 1]; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  size_t bytes() const { return size_ * sizeof(T); }
  bool mapped() const { return backing_ != nullptr; }

 private:
  std::vector<T> owned_;
  std::shared_ptr<const void> backing_;
  const T* data_ = nullptr;
  size_t size_ = 0;
};

// Strings back to back with their offsets (one more than strings), owned or viewed alike: what a
// sorted dictionary needs, without a heap string per entry.
class StringColumn {
 public:
  StringColumn() = default;
  explicit StringColumn(const std::vector<std::string>& strings) {
    std::vector<uint32_t> offsets{0};
    std::vector<char> chars;
    for (const std::string& s : strings) {
      chars.insert(chars.end(), s.begin(), s.end());
      if (chars.size() > UINT32_MAX) throw Internal("a string column holds at most 4 GiB");
      offsets.push_back(uint32_t(chars.size()));
    }
    offsets_ = std::move(offsets);
    chars_ = std::move(chars);
  }

  size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  std::string_view operator[](size_t i) const { return {chars_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]}; }
  size_t bytes() const { return offsets_.bytes() + chars_.bytes(); }
  bool mapped() const { return offsets_.mapped(); }

  // Its two arrays in file order, for BlockWriter and BlockReader (util/block_io.h).
  template <typename A, typename Self>
  static void Layout(A& a, Self& s) {
    a(s.offsets_, s.chars_);
  }

 private:
  Column<uint32_t> offsets_;
  Column<char> chars_;
};

}  // namespace tessera
