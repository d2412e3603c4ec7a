#include "index/filter_index_postings.h"

#include <algorithm>
#include <bit>

namespace tessera {

namespace {

void PutVarint(uint32_t v, std::string* out) {
  for (; v >= 0x80; v >>= 7) out->push_back(char(v | 0x80));
  out->push_back(char(v));
}

size_t Hash(uint64_t key, size_t slots) { return size_t((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots - 1); }

}  // namespace

void PostingIndex::Builder::Add(uint64_t key, uint32_t row) {
  List& list = lists_[ListFor(key)];
  if (list.bytes.empty()) {
    PutVarint(row, &list.bytes);
  } else if (row != list.last_row) {
    PutVarint(row - list.last_row, &list.bytes);
  }
  list.last_row = row;
}

uint32_t PostingIndex::Builder::ListFor(uint64_t key) {
  if (2 * (lists_.size() + 1) > slots_.size()) Grow();
  for (size_t s = Hash(key, slots_.size());; s = (s + 1) & (slots_.size() - 1)) {
    if (slots_[s].list == 0) {
      lists_.push_back({key, 0, {}});
      slots_[s] = {key, uint32_t(lists_.size())};
      return slots_[s].list - 1;
    }
    if (slots_[s].key == key) return slots_[s].list - 1;
  }
}

void PostingIndex::Builder::Grow() {
  slots_.assign(std::max<size_t>(1024, 2 * slots_.size()), Slot{0, 0});
  for (uint32_t i = 0; i < lists_.size(); ++i) {
    size_t s = Hash(lists_[i].key, slots_.size());
    while (slots_[s].list != 0) s = (s + 1) & (slots_.size() - 1);
    slots_[s] = {lists_[i].key, i + 1};
  }
}

PostingIndex PostingIndex::Builder::Finish() {
  std::sort(lists_.begin(), lists_.end(), [](const List& a, const List& b) { return a.key < b.key; });
  size_t total = 0;
  for (const List& list : lists_) total += list.bytes.size();
  std::vector<uint64_t> keys, starts;
  std::vector<char> data;
  keys.reserve(lists_.size());
  starts.reserve(lists_.size() + 1);
  data.reserve(total);
  for (const List& list : lists_) {
    keys.push_back(list.key);
    starts.push_back(data.size());
    data.insert(data.end(), list.bytes.begin(), list.bytes.end());
  }
  starts.push_back(data.size());
  lists_ = {};
  slots_ = {};
  PostingIndex index;
  index.keys_ = std::move(keys);
  index.starts_ = std::move(starts);
  index.data_ = std::move(data);
  return index;
}

PostingList PostingIndex::Find(uint64_t key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it == keys_.end() || *it != key) return PostingList();
  size_t i = it - keys_.begin();
  return PostingList(std::string_view(data_.data() + starts_[i], starts_[i + 1] - starts_[i]));
}

std::optional<std::vector<uint32_t>> PostingIndex::FindAtLeast(std::vector<WeightedKey> keys, int64_t need,
                                                               const std::function<bool(uint32_t)>& admit) const {
  if (need <= 0) return std::nullopt;
  struct Weighted {
    PostingList list;
    uint32_t weight;
  };
  std::vector<Weighted> lists;
  int64_t rest = 0;  // weight of the lists not yet read
  for (const WeightedKey& k : keys) {
    lists.push_back({Find(k.key), k.weight});
    rest += k.weight;
  }
  std::sort(lists.begin(), lists.end(), [](const Weighted& a, const Weighted& b) { return a.list.encoded_size() < b.list.encoded_size(); });

  // A row in none of the shortest lists that leave rest < need cannot reach need: gather those.
  struct Candidate {
    uint32_t row;
    uint32_t hits;
  };
  std::vector<Candidate> candidates;
  size_t next = 0;
  for (; next < lists.size() && rest >= need; ++next) {
    lists[next].list.ForEach([&](uint32_t r) {
      if (!admit || admit(r)) candidates.push_back({r, lists[next].weight});
    });
    rest -= lists[next].weight;
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.row < b.row; });
  size_t kept = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (kept > 0 && candidates[kept - 1].row == candidates[i].row) {
      candidates[kept - 1].hits += candidates[i].hits;
    } else {
      candidates[kept++] = candidates[i];
    }
  }
  candidates.resize(kept);
  auto drop_short = [&] { std::erase_if(candidates, [&](const Candidate& c) { return int64_t(c.hits) + rest < need; }); };
  drop_short();

  // Decoding costs about a nanosecond a byte, verifying a row some hundreds: refining is worth a
  // few dozen bytes read per candidate, in all.
  constexpr size_t kBytesPerCandidate = 64;
  size_t read = 0;
  for (; next < lists.size() && !candidates.empty(); ++next) {
    read += lists[next].list.encoded_size();
    if (read > kBytesPerCandidate * candidates.size()) break;
    size_t i = 0;
    lists[next].list.ForEach([&](uint32_t r) {
      while (i < candidates.size() && candidates[i].row < r) ++i;
      if (i < candidates.size() && candidates[i].row == r) candidates[i].hits += lists[next].weight;
    });
    rest -= lists[next].weight;
    drop_short();
  }
  std::vector<uint32_t> rows;
  rows.reserve(candidates.size());
  for (const Candidate& c : candidates) rows.push_back(c.row);
  return rows;
}

std::optional<std::vector<uint32_t>> PostingIndex::FindAll(const std::vector<uint64_t>& keys) const {
  std::vector<WeightedKey> weighted;
  for (uint64_t key : keys) weighted.push_back({key, 1});
  return FindAtLeast(std::move(weighted), int64_t(keys.size()));
}

std::vector<uint32_t> PostingIndex::FindAny(const std::vector<uint64_t>& keys, uint32_t segment_rows) const {
  RowUnion rows(segment_rows);
  for (uint64_t key : keys) Find(key).ForEach([&](uint32_t r) { rows.Add(r); });
  return rows.Rows();
}

size_t PostingIndex::bytes() const { return keys_.bytes() + starts_.bytes() + data_.bytes(); }

std::vector<uint32_t> RowUnion::Rows() const {
  std::vector<uint32_t> rows;
  for (size_t w = 0; w < words_.size(); ++w) {
    for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) rows.push_back(uint32_t(w * 64 + std::countr_zero(bits)));
  }
  return rows;
}

void IntersectInto(std::optional<std::vector<uint32_t>>* set, std::optional<std::vector<uint32_t>> rows) {
  if (!rows) return;
  if (!*set) {
    *set = std::move(rows);
    return;
  }
  std::vector<uint32_t> both;
  std::set_intersection((*set)->begin(), (*set)->end(), rows->begin(), rows->end(), std::back_inserter(both));
  **set = std::move(both);
}

}  // namespace tessera
