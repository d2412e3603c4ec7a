// Posting lists of the filter indexes: for each 64-bit key (a hashed token, a packed trigram), the
// ascending rows holding it, delta-varint coded back to back in one buffer. Built in memory or
// viewed in the segment's saved filter-index file alike.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/column.h"

namespace tessera {

// One encoded list; empty when the key is absent.
class PostingList {
 public:
  PostingList() = default;
  explicit PostingList(std::string_view bytes) : bytes_(bytes) {}

  bool empty() const { return bytes_.empty(); }
  size_t encoded_size() const { return bytes_.size(); }  // orders intersections, cheapest first

  template <typename F>
  void ForEach(F&& f) const {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes_.data());
    const uint8_t* end = p + bytes_.size();
    uint32_t row = 0;
    while (p < end) {
      uint32_t delta = 0;
      for (int shift = 0;; shift += 7) {
        uint8_t b = *p++;
        delta |= uint32_t(b & 0x7F) << shift;
        if (b < 0x80) break;
      }
      row += delta;
      f(row);
    }
  }

 private:
  std::string_view bytes_;
};

class PostingIndex {
 public:
  // Encodes each list as its rows arrive, so a build holds about its final size; the key table is
  // open addressing because it is looked up once per token or trigram of every text.
  class Builder {
   public:
    // Rows must arrive in ascending order; a repeated (key, row) is kept once.
    void Add(uint64_t key, uint32_t row);
    PostingIndex Finish();

   private:
    struct List {
      uint64_t key;
      uint32_t last_row = 0;
      std::string bytes;  // short lists, most of them, stay inline
    };
    uint32_t ListFor(uint64_t key);
    void Grow();

    struct Slot {
      uint64_t key;
      uint32_t list;  // number + 1, 0 when free
    };
    std::vector<List> lists_;
    std::vector<Slot> slots_;  // a power of two long
  };

  struct WeightedKey {
    uint64_t key;
    uint32_t weight;
  };

  PostingList Find(uint64_t key) const;
  // Rows admitted (all when admit is empty) whose keys' weights add up to at least need; nullopt
  // when need <= 0 asserts nothing. May include rows that fall short: the longest lists are left
  // unread once reading them would cost more than the caller's verifying the rows in question.
  std::optional<std::vector<uint32_t>> FindAtLeast(std::vector<WeightedKey> keys, int64_t need,
                                                   const std::function<bool(uint32_t)>& admit = nullptr) const;
  // Rows holding every key (as FindAtLeast, possibly more); nullopt for no keys.
  std::optional<std::vector<uint32_t>> FindAll(const std::vector<uint64_t>& keys) const;
  // Rows holding any key; segment_rows bounds the rows.
  std::vector<uint32_t> FindAny(const std::vector<uint64_t>& keys, uint32_t segment_rows) const;
  size_t bytes() const;
  bool mapped() const { return keys_.mapped(); }

  // Its arrays in file order (util/block_io.h).
  template <typename A, typename Self>
  static void Layout(A& a, Self& p) {
    a(p.keys_, p.starts_, p.data_);
  }

 private:
  Column<uint64_t> keys_;    // ascending
  Column<uint64_t> starts_;  // list i is data_[starts_[i], starts_[i + 1])
  Column<char> data_;
};

// Rows gathered in any order, handed back ascending and distinct.
class RowUnion {
 public:
  explicit RowUnion(uint32_t rows) : words_((rows + 63) / 64) {}
  void Add(uint32_t row) { words_[row >> 6] |= uint64_t(1) << (row & 63); }
  std::vector<uint32_t> Rows() const;

 private:
  std::vector<uint64_t> words_;
};

// Narrows *set to the rows also in rows, where nullopt stands for every row.
void IntersectInto(std::optional<std::vector<uint32_t>>* set, std::optional<std::vector<uint32_t>> rows);

}  // namespace tessera
