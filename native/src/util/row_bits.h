// A set of the rows of one range [begin, end) of a segment, a bit a row: what a filter narrows a
// range to before its rows are scored or listed.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace tessera {

class RowBits {
 public:
  // Every row of [begin, end) set.
  void Reset(uint32_t begin, uint32_t end) {
    begin_ = begin;
    end_ = end;
    words_.assign((size_t(end - begin) + 63) / 64, ~uint64_t(0));
    if ((end - begin) % 64) words_.back() = (uint64_t(1) << ((end - begin) % 64)) - 1;
  }
  uint32_t begin() const { return begin_; }
  uint32_t end() const { return end_; }
  uint32_t size() const { return end_ - begin_; }

  bool Has(uint32_t row) const { return (words_[(row - begin_) / 64] >> ((row - begin_) % 64)) & 1; }
  void Clear(uint32_t row) { words_[(row - begin_) / 64] &= ~(uint64_t(1) << ((row - begin_) % 64)); }
  void Set(uint32_t row) { words_[(row - begin_) / 64] |= uint64_t(1) << ((row - begin_) % 64); }
  void ClearAll() { std::fill(words_.begin(), words_.end(), 0); }
  // Keeps only the rows other (over the same range) holds too.
  void Intersect(const RowBits& other) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] &= other.words_[i];
  }
  // Adds the rows other (over the same range) holds.
  void Unite(const RowBits& other) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] |= other.words_[i];
  }
  bool None() const {
    return std::all_of(words_.begin(), words_.end(), [](uint64_t w) { return w == 0; });
  }
  uint32_t Count() const {
    uint32_t n = 0;
    for (uint64_t w : words_) n += uint32_t(std::popcount(w));
    return n;
  }
  // Rows begin + 64 * i up to 64 more, one bit each.
  uint64_t Word(size_t i) const { return words_[i]; }

  // Keeps the rows held for which pass(row) holds, asking it of each row held, ascending.
  template <typename Pass>
  void Keep(Pass&& pass) {
    for (size_t i = 0; i < words_.size(); ++i) {
      uint64_t kept = 0;
      for (uint64_t w = words_[i]; w != 0; w &= w - 1) {
        int bit = std::countr_zero(w);
        if (pass(begin_ + uint32_t(i * 64 + bit))) kept |= uint64_t(1) << bit;
      }
      words_[i] = kept;
    }
  }

  // Calls fn(row) for each row held, ascending.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < words_.size(); ++i)
      for (uint64_t w = words_[i]; w != 0; w &= w - 1) fn(begin_ + uint32_t(i * 64 + std::countr_zero(w)));
  }

 private:
  uint32_t begin_ = 0, end_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace tessera
