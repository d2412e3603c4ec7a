#include "filter/predicates.h"

#include <re2/prefilter.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>

#include "analysis/text_match.h"

namespace tessera {
namespace {

bool IsNaN(const ValueView& v) { return v.tag == ValueTag::kFloat && std::isnan(v.f); }
bool IsNaN(const Constant& c) { return c.tag == ValueTag::kFloat && std::isnan(c.f); }

bool Equal(const ValueView& v, const Constant& c) {
  if (v.tag != c.tag) return false;
  switch (c.tag) {
    case ValueTag::kStr: return v.s == c.s;
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

}  // namespace

void AllOf::AddTextConjuncts(std::vector<TextConjunct>* out) const {
  for (const PredicatePtr& p : children_) p->AddTextConjuncts(out);
}

bool AllOf::Matches(std::string_view attrs) const {
  for (const PredicatePtr& p : children_) {
    if (!p->Matches(attrs)) return false;
  }
  return true;
}

bool AnyOf::Matches(std::string_view attrs) const {
  for (const PredicatePtr& p : children_) {
    if (p->Matches(attrs)) return true;
  }
  return false;
}

bool Leaf::Matches(std::string_view attrs) const {
  ValueView v;
  return FindAttr(attrs, key_, &v) && Test(v);
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

InLeaf::InLeaf(std::string key, std::vector<Constant> values, bool negated)
    : Leaf(std::move(key)), values_(std::move(values)), negated_(negated) {
  for (const Constant& c : values_) has_nan_ |= IsNaN(c);
}

bool InLeaf::Test(const ValueView& v) const {
  if (IsNaN(v)) return false;
  if (negated_ && has_nan_) return false;  // Ne NaN never holds, so neither does NotIn
  bool found = std::any_of(values_.begin(), values_.end(), [&](const Constant& c) { return Equal(v, c); });
  return found != negated_;
}

bool ContainsLeaf::Test(const ValueView& v) const {
  if (v.tag != ValueTag::kList) return false;
  ListCursor elements(v);
  std::string_view e;
  bool found = false;
  while (!found && elements.Next(&e)) found = std::find(elements_.begin(), elements_.end(), e) != elements_.end();
  return found != negated_;
}

RegexLeaf::RegexLeaf(std::string key, std::unique_ptr<re2::RE2> re) : Leaf(std::move(key)), re_(std::move(re)) {}
RegexLeaf::~RegexLeaf() = default;

std::unique_ptr<RegexLeaf> RegexLeaf::Compile(std::string key, const std::string& pattern, std::string* error) {
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

TokensLeaf::TokensLeaf(std::string key, std::string_view text, TokenMode mode)
    : TextLeaf(std::move(key)), mode_(mode), tokens_(FoldedTokens(text)) {
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

bool TokensLeaf::TestText(std::string_view text) const {
  switch (mode_) {
    case TokenMode::kAll: return HasAll(text);
    case TokenMode::kAny: return HasAny(text);
    case TokenMode::kSequence: return HasSequence(text);
  }
  return false;
}

}  // namespace tessera
