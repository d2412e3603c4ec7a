#include "index/filter_index_trigrams.h"

#include <algorithm>

#include "analysis/text_match.h"

namespace tessera {
namespace {

uint32_t TrigramFold(uint32_t cp) {
  if (cp == 0x17F) return 's';
  if (cp == 0x212A) return 'k';
  return AsciiLower(cp);
}

uint64_t TrigramKey(uint32_t a, uint32_t b, uint32_t c) { return (uint64_t(a) << 42) | (uint64_t(b) << 21) | c; }

// Calls f(a, b, c) with the folded code points of every trigram of text, repeats included, and
// returns the number of code points.
template <typename F>
size_t ForEachTrigram(std::string_view text, F&& f) {
  uint32_t a = 0, b = 0;
  size_t n = 0;
  for (size_t pos = 0; pos < text.size(); ++n) {
    uint32_t c = TrigramFold(NextCodePoint(text, &pos));
    if (n >= 2) f(a, b, c);
    a = b;
    b = c;
  }
  return n;
}

}  // namespace

void TrigramIndex::Builder::Add(std::string_view text, uint32_t row) {
  size_t length = ForEachTrigram(text, [&](uint32_t a, uint32_t b, uint32_t c) { postings_.Add(TrigramKey(a, b, c), row); });
  if (min_length_.size() <= row) {
    min_length_.resize(row + 1, kLongText);
    max_length_.resize(row + 1, 0);
  }
  min_length_[row] = std::min<size_t>(min_length_[row], std::min<size_t>(length, kLongText));
  max_length_[row] = std::max<size_t>(max_length_[row], std::min<size_t>(length, kLongText));
}

TrigramIndex TrigramIndex::Builder::Finish(uint32_t segment_rows) {
  min_length_.resize(segment_rows, kLongText);
  max_length_.resize(segment_rows, 0);
  return TrigramIndex(postings_.Finish(), std::move(min_length_), std::move(max_length_));
}

size_t TrigramIndex::bytes() const { return postings_.bytes() + min_length_.bytes() + max_length_.bytes(); }

bool TrigramIndex::MayHaveLength(uint32_t row, int64_t lo, int64_t hi) const {
  return min_length_[row] <= hi && (max_length_[row] >= lo || max_length_[row] == kLongText);
}

// By trigrams, the q-gram lemma: an edit changes at most 3 of the query's trigram positions, so a
// text within k edits holds the trigrams of at least (positions - 3k) of them. A distinct trigram
// weighs as many positions as it fills in the query; a row holds it when any List element does.
// By length: a text within k edits of m code points has m - k to m + k of them.
std::vector<uint32_t> TrigramIndex::Fuzzy(std::string_view query, int max_edits) const {
  std::vector<uint64_t> keys;
  const int64_t length = int64_t(ForEachTrigram(query, [&](uint32_t a, uint32_t b, uint32_t c) { keys.push_back(TrigramKey(a, b, c)); }));
  const int64_t need = int64_t(keys.size()) - 3 * int64_t(max_edits);
  std::sort(keys.begin(), keys.end());
  std::vector<PostingIndex::WeightedKey> weighted;
  for (uint64_t key : keys) {
    if (weighted.empty() || weighted.back().key != key) weighted.push_back({key, 0});
    ++weighted.back().weight;
  }
  const int64_t lo = length - max_edits, hi = length + max_edits;
  auto may_have_length = [&](uint32_t r) { return MayHaveLength(r, lo, hi); };
  if (auto rows = postings_.FindAtLeast(std::move(weighted), need, may_have_length)) return *rows;
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < min_length_.size(); ++r) {
    if (may_have_length(r)) rows.push_back(r);
  }
  return rows;
}

// Evaluates RE2's prefilter over row sets, where "contains the atom" is approximated from above by
// "holds every trigram of it"; a part that asserts nothing checkable is nullopt (all rows).
std::optional<std::vector<uint32_t>> TrigramIndex::Regex(const RegexAtoms& atoms, uint32_t segment_rows) const {
  switch (atoms.op) {
    case RegexAtoms::Op::kAll: return std::nullopt;
    case RegexAtoms::Op::kNone: return std::vector<uint32_t>();
    case RegexAtoms::Op::kAtom: return Atom(atoms.atom);
    case RegexAtoms::Op::kAnd: {
      std::optional<std::vector<uint32_t>> out;
      for (const RegexAtoms& sub : atoms.subs) {
        IntersectInto(&out, Regex(sub, segment_rows));
        if (out && out->empty()) break;
      }
      return out;
    }
    case RegexAtoms::Op::kOr: {
      RowUnion out(segment_rows);
      for (const RegexAtoms& sub : atoms.subs) {
        std::optional<std::vector<uint32_t>> rows = Regex(sub, segment_rows);
        if (!rows) return std::nullopt;
        for (uint32_t r : *rows) out.Add(r);
      }
      return out.Rows();
    }
  }
  return std::nullopt;
}

// An atom is lowercased by RE2; its non-ASCII code points may stand for text code points our
// folding keeps apart (É for é), so only its all-ASCII trigrams are required.
std::optional<std::vector<uint32_t>> TrigramIndex::Atom(std::string_view atom) const {
  std::vector<uint64_t> keys;
  ForEachTrigram(atom, [&](uint32_t a, uint32_t b, uint32_t c) {
    if ((a | b | c) < 0x80) keys.push_back(TrigramKey(a, b, c));
  });
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return postings_.FindAll(keys);
}

}  // namespace tessera
