#include "filter/predicates.h"

#include <re2/prefilter.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "analysis/text_match.h"

namespace tessera {
namespace {

bool IsNaN(const ValueView& v) { return v.tag == ValueTag::kFloat && std::isnan(v.f); }
bool IsNaN(const Constant& c) { return c.tag == ValueTag::kFloat && std::isnan(c.f); }

// Byte equality, without a library call for the short strings attribute values usually are.
inline bool SameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.size() > 16) return std::memcmp(a.data(), b.data(), a.size()) == 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool Equal(const ValueView& v, const Constant& c) {
  if (v.tag != c.tag) return false;
  switch (c.tag) {
    case ValueTag::kStr: return SameBytes(v.s, c.s);
    case ValueTag::kInt:
    case ValueTag::kDateTime:
    case ValueTag::kBool: return v.i == c.i;
    case ValueTag::kFloat: return v.f == c.f;  // 0.0 == -0.0, NaN != NaN
    case ValueTag::kNull: return true;
    case ValueTag::kList: {
      if (v.list_size != c.list.size()) return false;
      ListCursor elements(v);
      std::string_view e;
      for (const std::string& want : c.list) {
        elements.Next(&e);
        if (e != want) return false;
      }
      return true;
    }
  }
  return false;
}

// Three-way order of v against c, or false when the pair is not comparable: different types,
// Null or List, or a NaN.
bool Order(const ValueView& v, const Constant& c, int* order) {
  if (v.tag != c.tag) return false;
  switch (c.tag) {
    case ValueTag::kInt:
    case ValueTag::kDateTime:
    case ValueTag::kBool: *order = (v.i > c.i) - (v.i < c.i); return true;
    case ValueTag::kFloat:
      if (std::isnan(v.f) || std::isnan(c.f)) return false;
      *order = (v.f > c.f) - (v.f < c.f);
      return true;
    case ValueTag::kStr: {
      int r = v.s.compare(c.s);  // bytes as unsigned char
      *order = (r > 0) - (r < 0);
      return true;
    }
    case ValueTag::kNull:
    case ValueTag::kList: return false;
  }
  return false;
}

// RE2's prefilter tree, copied; null (RE2 gave up on the pattern) asserts nothing.
RegexAtoms CopyPrefilter(re2::Prefilter* p) {
  RegexAtoms out;
  if (p == nullptr) return out;
  switch (p->op()) {
    case re2::Prefilter::ALL: break;
    case re2::Prefilter::NONE: out.op = RegexAtoms::Op::kNone; break;
    case re2::Prefilter::ATOM:
      out.op = RegexAtoms::Op::kAtom;
      out.atom = p->atom();
      break;
    case re2::Prefilter::AND:
    case re2::Prefilter::OR:
      out.op = p->op() == re2::Prefilter::AND ? RegexAtoms::Op::kAnd : RegexAtoms::Op::kOr;
      for (re2::Prefilter* sub : *p->subs()) out.subs.push_back(CopyPrefilter(sub));
      break;
  }
  return out;
}

// Keeps the rows whose value in column passes test (a leaf's own Test, called directly so it
// inlines into the loop): exact.
template <typename Test>
Narrowed KeepPassing(const AttrColumn& column, RowBits& rows, Test&& test) {
  rows.Keep([&](uint32_t r) {
    ValueView v;
    return column.Get(r, &v) && test(v);
  });
  return Narrowed::kExact;
}

// Equal(row r's value, c) read straight from the column's arrays for the types compared by a slot
// or by bytes, which a narrowing asks of every row.
inline bool EqualAt(const AttrColumn& column, uint32_t r, const Constant& c) {
  if (column.tags[r] != uint8_t(c.tag)) return false;
  switch (c.tag) {
    case ValueTag::kInt:
    case ValueTag::kDateTime:
    case ValueTag::kBool: return column.slots[r] == c.i;
    case ValueTag::kStr: return SameBytes(column.Span(r), c.s);
    default: {
      ValueView v;
      column.Get(r, &v);
      return Equal(v, c);
    }
  }
}

// Order(row r's value, c) likewise, for a c of a slot type or a Str of the row's type.
inline int OrderAt(const AttrColumn& column, uint32_t r, const Constant& c) {
  if (c.tag == ValueTag::kStr) {
    int order = column.Span(r).compare(c.s);
    return (order > 0) - (order < 0);
  }
  return (column.slots[r] > c.i) - (column.slots[r] < c.i);
}

// Below this share of a range's rows left (1/16), a narrowing tests each row exactly: a few exact
// tests cost less than the scoring they spare.
constexpr uint32_t kTestRowsBelow = 16;

// The rows of `within` whose bytes in column hold needle (ASCII-folded, see FindFolded): each row
// searched alone when few are left, else one pass over the range's bytes, continuing past a hit at
// the next row's start.
RowBits RowsHolding(const AttrColumn& column, std::string_view needle, const RowBits& within) {
  RowBits out;
  out.Reset(within.begin(), within.end());
  out.ClearAll();
  if (uint64_t(within.Count()) * 8 <= within.size()) {
    within.ForEach([&](uint32_t r) {
      if (FindFolded(column.Span(r), needle, 0) != std::string_view::npos) out.Set(r);
    });
    return out;
  }
  const uint64_t* offsets = column.offsets;
  const uint64_t base = offsets[within.begin()];
  std::string_view text(column.bytes + base, size_t(offsets[within.end()] - base));
  uint32_t row = within.begin();
  for (size_t at = FindFolded(text, needle, 0); at != std::string_view::npos;) {
    // The row holding byte `at`: the last row starting at or before it.
    row = uint32_t(std::upper_bound(offsets + row + 1, offsets + within.end() + 1, base + at) - offsets - 1);
    uint64_t row_end = offsets[row + 1] - base;
    if (at + needle.size() > row_end) {  // runs into the next row: not a hit
      at = FindFolded(text, needle, at + 1);
      continue;
    }
    if (within.Has(row)) out.Set(row);
    at = FindFolded(text, needle, size_t(row_end));
  }
  return out;
}

}  // namespace

void AllOf::AddTextConjuncts(std::vector<TextConjunct>* out) const {
  for (const PredicatePtr& p : children_) p->AddTextConjuncts(out);
}

bool AllOf::Matches(const RowAttrs& row) const {
  for (const PredicatePtr& p : children_) {
    if (!p->Matches(row)) return false;
  }
  return true;
}

Narrowed AllOf::Narrow(const AttrColumn* const* columns, RowBits& rows) const {
  bool any = false, exact = true;
  for (const PredicatePtr& p : children_) {
    Narrowed n = p->Narrow(columns, rows);
    any |= n != Narrowed::kNone;
    exact &= n == Narrowed::kExact;
    if (rows.None()) return Narrowed::kExact;
  }
  return exact ? Narrowed::kExact : any ? Narrowed::kSuperset : Narrowed::kNone;
}

bool AnyOf::Matches(const RowAttrs& row) const {
  for (const PredicatePtr& p : children_) {
    if (p->Matches(row)) return true;
  }
  return false;
}

bool Leaf::Matches(const RowAttrs& row) const {
  ValueView v;
  return row.Find(key_.slot, key_.name, &v) && Test(v);
}

Narrowed Leaf::Narrow(const AttrColumn* const* columns, RowBits& rows) const {
  const AttrColumn* column = columns[key_.slot];
  if (column == nullptr) {
    rows.ClearAll();
    return Narrowed::kExact;
  }
  return column->in_blob() ? Narrowed::kNone : NarrowColumn(*column, rows);
}

bool CompareLeaf::Test(const ValueView& v) const {
  if (IsNaN(v) || IsNaN(value_)) return false;
  if (op_ == CompareOp::kEq) return Equal(v, value_);
  if (op_ == CompareOp::kNe) return !Equal(v, value_);
  int order;
  if (!Order(v, value_, &order)) return false;
  switch (op_) {
    case CompareOp::kLt: return order < 0;
    case CompareOp::kLe: return order <= 0;
    case CompareOp::kGt: return order > 0;
    case CompareOp::kGe: return order >= 0;
    default: return false;
  }
}

Narrowed CompareLeaf::NarrowColumn(const AttrColumn& column, RowBits& rows) const {
  const bool by_slot = value_.tag == ValueTag::kInt || value_.tag == ValueTag::kDateTime || value_.tag == ValueTag::kBool;
  if (op_ == CompareOp::kNe || !(by_slot || value_.tag == ValueTag::kStr))
    return KeepPassing(column, rows, [this](const ValueView& v) { return CompareLeaf::Test(v); });
  if (value_.tag == ValueTag::kStr && column.codes) {
    // The rows holding a Str on the right side of the constant hold codes [lo, hi].
    bool equal;
    const uint32_t below = column.CodesBelow(value_.s, &equal), at_or_below = below + (equal ? 1 : 0);
    uint32_t lo = 1, hi = column.dict_size;
    switch (op_) {
      case CompareOp::kEq: lo = below + 1, hi = at_or_below; break;
      case CompareOp::kLt: hi = below; break;
      case CompareOp::kLe: hi = at_or_below; break;
      case CompareOp::kGt: lo = at_or_below + 1; break;
      default: lo = below + 1; break;
    }
    if (hi < lo) {
      rows.ClearAll();
    } else {
      rows.Keep([&](uint32_t r) { return uint32_t(column.codes[r]) - lo <= hi - lo; });
    }
    return Narrowed::kExact;
  }
  if (op_ == CompareOp::kEq) {
    rows.Keep([&](uint32_t r) { return EqualAt(column, r, value_); });
    return Narrowed::kExact;
  }
  const uint8_t tag = uint8_t(value_.tag);
  auto keep = [&](auto holds) { rows.Keep([&](uint32_t r) { return column.tags[r] == tag && holds(OrderAt(column, r, value_)); }); };
  switch (op_) {
    case CompareOp::kLt: keep([](int order) { return order < 0; }); break;
    case CompareOp::kLe: keep([](int order) { return order <= 0; }); break;
    case CompareOp::kGt: keep([](int order) { return order > 0; }); break;
    default: keep([](int order) { return order >= 0; }); break;
  }
  return Narrowed::kExact;
}

InLeaf::InLeaf(AttrKey key, std::vector<Constant> values, bool negated)
    : Leaf(std::move(key)), values_(std::move(values)), negated_(negated) {
  for (const Constant& c : values_) has_nan_ |= IsNaN(c);
}

bool InLeaf::Test(const ValueView& v) const {
  if (IsNaN(v)) return false;
  if (negated_ && has_nan_) return false;  // Ne NaN never holds, so neither does NotIn
  bool found = std::any_of(values_.begin(), values_.end(), [&](const Constant& c) { return Equal(v, c); });
  return found != negated_;
}

Narrowed InLeaf::NarrowColumn(const AttrColumn& column, RowBits& rows) const {
  if (negated_) return KeepPassing(column, rows, [this](const ValueView& v) { return InLeaf::Test(v); });
  if (column.codes && std::all_of(values_.begin(), values_.end(), [](const Constant& c) { return c.tag == ValueTag::kStr; })) {
    bool wanted[AttrColumn::kMaxCodes + 1] = {};  // by code; code 0 (no Str) never
    for (const Constant& c : values_) {
      bool equal;
      uint32_t below = column.CodesBelow(c.s, &equal);
      if (equal) wanted[below + 1] = true;
    }
    rows.Keep([&](uint32_t r) { return wanted[column.codes[r]]; });
    return Narrowed::kExact;
  }
  rows.Keep(
      [&](uint32_t r) { return std::any_of(values_.begin(), values_.end(), [&](const Constant& c) { return EqualAt(column, r, c); }); });
  return Narrowed::kExact;
}

Narrowed ContainsLeaf::NarrowColumn(const AttrColumn& column, RowBits& rows) const {
  return KeepPassing(column, rows, [this](const ValueView& v) { return ContainsLeaf::Test(v); });
}

bool ContainsLeaf::Test(const ValueView& v) const {
  if (v.tag != ValueTag::kList) return false;
  ListCursor elements(v);
  std::string_view e;
  bool found = false;
  while (!found && elements.Next(&e)) found = std::find(elements_.begin(), elements_.end(), e) != elements_.end();
  return found != negated_;
}

RegexLeaf::RegexLeaf(AttrKey key, std::unique_ptr<re2::RE2> re) : Leaf(std::move(key)), re_(std::move(re)) {}
RegexLeaf::~RegexLeaf() = default;

std::unique_ptr<RegexLeaf> RegexLeaf::Compile(AttrKey key, const std::string& pattern, std::string* error) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(pattern, options);
  if (!re->ok()) {
    *error = re->error();
    return nullptr;
  }
  return std::unique_ptr<RegexLeaf>(new RegexLeaf(std::move(key), std::move(re)));
}

void RegexLeaf::AddTextConjuncts(std::vector<TextConjunct>* out) const {
  std::unique_ptr<re2::Prefilter> prefilter(re2::Prefilter::FromRE2(re_.get()));
  TextConjunct& c = out->emplace_back(TextConjunct{TextConjunct::Kind::kRegex, key()});
  c.atoms = CopyPrefilter(prefilter.get());
}

void FuzzyLeaf::AddTextConjuncts(std::vector<TextConjunct>* out) const {
  TextConjunct& c = out->emplace_back(TextConjunct{TextConjunct::Kind::kFuzzy, key()});
  c.text = text_;
  c.max_edits = max_edits_;
}

bool RegexLeaf::Test(const ValueView& v) const { return v.tag == ValueTag::kStr && re2::RE2::FullMatch(v.s, *re_); }

bool TextLeaf::Test(const ValueView& v) const {
  if (v.tag == ValueTag::kStr) return TestText(v.s);
  if (v.tag != ValueTag::kList) return false;
  ListCursor elements(v);
  std::string_view e;
  while (elements.Next(&e)) {
    if (TestText(e)) return true;
  }
  return false;
}

TokensLeaf::TokensLeaf(AttrKey key, std::string_view text, TokenMode mode)
    : TextLeaf(std::move(key)), mode_(mode), tokens_(FoldedTokens(text)) {
  by_length_ = tokens_;
  std::sort(by_length_.begin(), by_length_.end());
  by_length_.erase(std::unique(by_length_.begin(), by_length_.end()), by_length_.end());
  std::stable_sort(by_length_.begin(), by_length_.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  if (mode_ != TokenMode::kSequence) {
    std::sort(tokens_.begin(), tokens_.end());
    tokens_.erase(std::unique(tokens_.begin(), tokens_.end()), tokens_.end());
    return;
  }
  // fallback_[i]: length of the longest proper prefix of tokens_[0..i] that is also its suffix.
  fallback_.assign(tokens_.size(), 0);
  for (size_t i = 1, k = 0; i < tokens_.size(); ++i) {
    while (k > 0 && tokens_[i] != tokens_[k]) k = fallback_[k - 1];
    if (tokens_[i] == tokens_[k]) ++k;
    fallback_[i] = k;
  }
}

void TokensLeaf::AddTextConjuncts(std::vector<TextConjunct>* out) const {
  auto kind = mode_ == TokenMode::kAny ? TextConjunct::Kind::kAnyToken : TextConjunct::Kind::kAllTokens;
  TextConjunct& c = out->emplace_back(TextConjunct{kind, key(), tokens_});
  std::sort(c.tokens.begin(), c.tokens.end());  // kSequence keeps its order and repeats
  c.tokens.erase(std::unique(c.tokens.begin(), c.tokens.end()), c.tokens.end());
}

bool TokensLeaf::HasToken(std::string_view text, std::string_view folded) const {
  TokenIterator it(text);
  std::string_view token;
  while (it.Next(&token)) {
    if (TokenEquals(token, folded)) return true;
  }
  return false;
}

// One pass over the text, ticking off query tokens as they appear.
bool TokensLeaf::HasAll(std::string_view text) const {
  if (tokens_.size() > 64) {
    return std::all_of(tokens_.begin(), tokens_.end(), [&](const std::string& t) { return HasToken(text, t); });
  }
  const uint64_t all = tokens_.size() == 64 ? ~uint64_t(0) : (uint64_t(1) << tokens_.size()) - 1;
  uint64_t seen = 0;
  TokenIterator it(text);
  std::string_view token;
  while (seen != all && it.Next(&token)) {
    for (size_t i = 0; i < tokens_.size(); ++i) {
      if (TokenEquals(token, tokens_[i])) {
        seen |= uint64_t(1) << i;
        break;
      }
    }
  }
  return seen == all;
}

bool TokensLeaf::HasAny(std::string_view text) const {
  TokenIterator it(text);
  std::string_view token;
  while (it.Next(&token)) {
    for (const std::string& t : tokens_) {
      if (TokenEquals(token, t)) return true;
    }
  }
  return false;
}

bool TokensLeaf::HasSequence(std::string_view text) const {
  if (tokens_.empty()) return true;
  TokenIterator it(text);
  std::string_view token;
  size_t matched = 0;
  while (it.Next(&token)) {
    while (matched > 0 && !TokenEquals(token, tokens_[matched])) matched = fallback_[matched - 1];
    if (TokenEquals(token, tokens_[matched]) && ++matched == tokens_.size()) return true;
  }
  return false;
}

Narrowed TokensLeaf::NarrowColumn(const AttrColumn& column, RowBits& rows) const {
  if (column.offsets == nullptr) {  // no row holds a Str or a List: no text to match
    rows.ClearAll();
    return Narrowed::kExact;
  }
  auto test = [this](const ValueView& v) { return TextLeaf::Test(v); };
  if (by_length_.empty()) return KeepPassing(column, rows, test);
  if (mode_ == TokenMode::kAny) {
    RowBits any;
    any.Reset(rows.begin(), rows.end());
    any.ClearAll();
    for (const std::string& t : by_length_) any.Unite(RowsHolding(column, t, rows));
    rows = std::move(any);
  } else {
    for (const std::string& t : by_length_) {
      rows = RowsHolding(column, t, rows);
      if (rows.None()) return Narrowed::kExact;
    }
  }
  if (uint64_t(rows.Count()) * kTestRowsBelow > rows.size()) return Narrowed::kSuperset;
  return KeepPassing(column, rows, test);
}

bool TokensLeaf::TestText(std::string_view text) const {
  switch (mode_) {
    case TokenMode::kAll: return HasAll(text);
    case TokenMode::kAny: return HasAny(text);
    case TokenMode::kSequence: return HasSequence(text);
  }
  return false;
}

}  // namespace tessera
