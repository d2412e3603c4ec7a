#include "filter_index_postings.h"

#include <algorithm>
#include <bit>

namespace tessera {

std::vector<uint32_t> PostingList::Decode() const {
  std::vector<uint32_t> rows;
  rows.reserve(bytes_.size());  // at least one byte per row
  ForEach([&](uint32_t row) { rows.push_back(row); });
  return rows;
}

PostingIndex PostingIndex::Builder::Finish() {
  PostingIndex index;
  index.keys_.reserve(lists_.size());
  for (const auto& entry : lists_) index.keys_.push_back(entry.first);
  std::sort(index.keys_.begin(), index.keys_.end());
  index.starts_.reserve(lists_.size() + 1);
  for (uint64_t key : index.keys_) {
    index.starts_.push_back(index.data_.size());
    uint32_t prev = 0;
    for (uint32_t row : lists_[key]) {
      uint32_t delta = row - prev;
      prev = row;
      for (; delta >= 0x80; delta >>= 7) index.data_.push_back(char(delta | 0x80));
      index.data_.push_back(char(delta));
    }
  }
  index.starts_.push_back(index.data_.size());
  index.data_.shrink_to_fit();
  lists_.clear();
  return index;
}

PostingList PostingIndex::Find(uint64_t key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it == keys_.end() || *it != key) return PostingList();
  size_t i = it - keys_.begin();
  return PostingList(std::string_view(data_).substr(starts_[i], starts_[i + 1] - starts_[i]));
}

std::optional<std::vector<uint32_t>> PostingIndex::FindAll(const std::vector<uint64_t>& keys) const {
  if (keys.empty()) return std::nullopt;
  std::vector<PostingList> lists;
  for (uint64_t key : keys) {
    lists.push_back(Find(key));
    if (lists.back().empty()) return std::vector<uint32_t>();
  }
  std::sort(lists.begin(), lists.end(), [](const PostingList& a, const PostingList& b) { return a.encoded_size() < b.encoded_size(); });
  std::vector<uint32_t> rows = lists[0].Decode();
  for (size_t i = 1; i < lists.size() && !rows.empty(); ++i) rows = Intersect(rows, lists[i].Decode());
  return rows;
}

std::vector<uint32_t> PostingIndex::FindAny(const std::vector<uint64_t>& keys, uint32_t segment_rows) const {
  RowUnion rows(segment_rows);
  for (uint64_t key : keys) Find(key).ForEach([&](uint32_t r) { rows.Add(r); });
  return rows.Rows();
}

size_t PostingIndex::bytes() const {
  return keys_.capacity() * sizeof(uint64_t) + starts_.capacity() * sizeof(uint64_t) + data_.capacity();
}

std::vector<uint32_t> RowUnion::Rows() const {
  std::vector<uint32_t> rows;
  for (size_t w = 0; w < words_.size(); ++w) {
    for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) rows.push_back(uint32_t(w * 64 + std::countr_zero(bits)));
  }
  return rows;
}

std::vector<uint32_t> Intersect(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace tessera
