// Posting lists of the filter indexes: for each 64-bit key (a hashed token, a packed trigram), the
// ascending rows holding it, delta-varint coded back to back in one buffer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

  std::vector<uint32_t> Decode() const;

 private:
  std::string_view bytes_;
};

class PostingIndex {
 public:
  class Builder {
   public:
    // Rows must arrive in ascending order; a repeated (key, row) is kept once.
    void Add(uint64_t key, uint32_t row) {
      std::vector<uint32_t>& rows = lists_[key];
      if (rows.empty() || rows.back() != row) rows.push_back(row);
    }
    PostingIndex Finish();

   private:
    std::unordered_map<uint64_t, std::vector<uint32_t>> lists_;
  };

  struct WeightedKey {
    uint64_t key;
    uint32_t weight;
  };

  PostingList Find(uint64_t key) const;
  // Rows whose keys' weights add up to at least need; nullopt when need <= 0 asserts nothing. May
  // include rows that fall short: a list far longer than the rows still in question is left
  // unread, since the caller verifies each row for less than decoding it would cost.
  std::optional<std::vector<uint32_t>> FindAtLeast(std::vector<WeightedKey> keys, int64_t need) const;
  // Rows holding every key (as FindAtLeast, possibly more); nullopt for no keys.
  std::optional<std::vector<uint32_t>> FindAll(const std::vector<uint64_t>& keys) const;
  // Rows holding any key; segment_rows bounds the rows.
  std::vector<uint32_t> FindAny(const std::vector<uint64_t>& keys, uint32_t segment_rows) const;
  size_t bytes() const;

 private:
  std::vector<uint64_t> keys_;    // ascending
  std::vector<uint64_t> starts_;  // list i is data_[starts_[i], starts_[i + 1])
  std::string data_;
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

std::vector<uint32_t> Intersect(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

}  // namespace tessera
