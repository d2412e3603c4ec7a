// The compiled form of a filter: a tree of predicates evaluated against one row's attributes (its
// blob or its segment's columns), or narrowing a range of rows column by column. Constants are
// decoded, patterns compiled and query text folded/tokenized once, at compile time.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/fuzzy.h"
#include "analysis/glob.h"
#include "filter/filter.h"
#include "util/byte_io.h"
#include "util/value.h"

namespace re2 {
class RE2;
}

namespace tessera {

class Predicate {
 public:
  virtual ~Predicate() = default;
  virtual bool Matches(const RowAttrs& row) const = 0;
  // Clears rows this predicate cannot match (see Filter::Narrow); most narrow nothing.
  virtual Narrowed Narrow(const AttrColumn* const* columns, RowBits& rows) const { return Narrowed::kNone; }
  // Describes this predicate, as a top-level conjunct, for the filter indexes (Filter::text_conjuncts).
  virtual void AddTextConjuncts(std::vector<TextConjunct>* out) const {}
};

using PredicatePtr = std::unique_ptr<const Predicate>;

class AllOf final : public Predicate {
 public:
  explicit AllOf(std::vector<PredicatePtr> children) : children_(std::move(children)) {}
  bool Matches(const RowAttrs& row) const override;
  Narrowed Narrow(const AttrColumn* const* columns, RowBits& rows) const override;  // each conjunct in turn
  void AddTextConjuncts(std::vector<TextConjunct>* out) const override;             // flattens: an All's conjuncts are ours

 private:
  std::vector<PredicatePtr> children_;
};

class AnyOf final : public Predicate {
 public:
  explicit AnyOf(std::vector<PredicatePtr> children) : children_(std::move(children)) {}
  bool Matches(const RowAttrs& row) const override;

 private:
  std::vector<PredicatePtr> children_;
};

// A true complement (rule 2): unlike Ne, Not of Eq holds on a record lacking the key.
class NotOf final : public Predicate {
 public:
  explicit NotOf(PredicatePtr child) : child_(std::move(child)) {}
  bool Matches(const RowAttrs& row) const override { return !child_->Matches(row); }

 private:
  PredicatePtr child_;
};

// An attribute name a leaf reads, with its slot in the filter's keys.
struct AttrKey {
  std::string name;
  uint32_t slot = 0;
};

// A positive assertion about one attribute (rule 1): a record lacking the key matches no leaf.
class Leaf : public Predicate {
 public:
  explicit Leaf(AttrKey key) : key_(std::move(key)) {}
  bool Matches(const RowAttrs& row) const final;
  // Rows of a key no row holds match nothing; otherwise NarrowColumn decides.
  Narrowed Narrow(const AttrColumn* const* columns, RowBits& rows) const final;

 protected:
  const std::string& key() const { return key_.name; }
  virtual bool Test(const ValueView& v) const = 0;
  // Narrows by the key's column (one with arrays). By default nothing: a leaf costly per row is
  // better tested only on the rows a scan still wants. The cheap ones test every row left.
  virtual Narrowed NarrowColumn(const AttrColumn& column, RowBits& rows) const { return Narrowed::kNone; }

 private:
  AttrKey key_;
};

// A Value from the filter, owning its bytes.
struct Constant {
  ValueTag tag = ValueTag::kNull;
  int64_t i = 0;  // Int, DateTime, Bool (0/1)
  double f = 0;
  std::string s;
  std::vector<std::string> list;
};

// Walks a stored List's elements without allocating.
class ListCursor {
 public:
  explicit ListCursor(const ValueView& v) : reader_(v.s), left_(v.list_size) {}
  bool Next(std::string_view* element) {
    if (left_ == 0) return false;
    --left_;
    *element = reader_.Bytes();
    return true;
  }

 private:
  ByteReader reader_;
  uint32_t left_;
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

// Eq, Ne and the ranges. Types never cross-compare and a NaN on either side matches nothing.
class CompareLeaf final : public Leaf {
 public:
  CompareLeaf(AttrKey key, CompareOp op, Constant value) : Leaf(std::move(key)), op_(op), value_(std::move(value)) {}

 protected:
  bool Test(const ValueView& v) const override;
  Narrowed NarrowColumn(const AttrColumn& column, RowBits& rows) const override;

 private:
  CompareOp op_;
  Constant value_;
};

// In, and NotIn (negated): the same as an Any of Eq, or an All of Ne, over the values.
class InLeaf final : public Leaf {
 public:
  InLeaf(AttrKey key, std::vector<Constant> values, bool negated);

 protected:
  bool Test(const ValueView& v) const override;
  Narrowed NarrowColumn(const AttrColumn& column, RowBits& rows) const override;

 private:
  std::vector<Constant> values_;
  bool negated_;
  bool has_nan_ = false;
};

// Contains and ContainsAny (any of the elements), NotContains (negated): whole List elements.
class ContainsLeaf final : public Leaf {
 public:
  ContainsLeaf(AttrKey key, std::vector<std::string> elements, bool negated)
      : Leaf(std::move(key)), elements_(std::move(elements)), negated_(negated) {}

 protected:
  bool Test(const ValueView& v) const override;
  Narrowed NarrowColumn(const AttrColumn& column, RowBits& rows) const override;

 private:
  std::vector<std::string> elements_;
  bool negated_;
};

class GlobLeaf final : public Leaf {
 public:
  GlobLeaf(AttrKey key, GlobPattern pattern) : Leaf(std::move(key)), pattern_(std::move(pattern)) {}

 protected:
  bool Test(const ValueView& v) const override { return v.tag == ValueTag::kStr && pattern_.Matches(v.s); }

 private:
  GlobPattern pattern_;
};

// A full match (anchored at both ends) on RE2, which runs in linear time.
class RegexLeaf final : public Leaf {
 public:
  // Returns null with *error set (RE2's message) when the pattern does not parse.
  static std::unique_ptr<RegexLeaf> Compile(AttrKey key, const std::string& pattern, std::string* error);
  ~RegexLeaf() override;
  void AddTextConjuncts(std::vector<TextConjunct>* out) const override;

 protected:
  bool Test(const ValueView& v) const override;

 private:
  RegexLeaf(AttrKey key, std::unique_ptr<re2::RE2> re);
  std::unique_ptr<re2::RE2> re_;
};

// The text group reads a Str directly, or a List element by element, matching when any does.
class TextLeaf : public Leaf {
 public:
  using Leaf::Leaf;

 protected:
  bool Test(const ValueView& v) const final;
  virtual bool TestText(std::string_view text) const = 0;
};

class FuzzyLeaf final : public TextLeaf {
 public:
  FuzzyLeaf(AttrKey key, std::string_view text, int max_edits)
      : TextLeaf(std::move(key)), matcher_(text, max_edits), text_(text), max_edits_(max_edits) {}
  void AddTextConjuncts(std::vector<TextConjunct>* out) const override;

 protected:
  bool TestText(std::string_view text) const override { return matcher_.Matches(text); }

 private:
  FuzzyMatcher matcher_;
  std::string text_;  // for the trigram index, which reads the query itself
  int max_edits_;
};

enum class TokenMode { kAll, kAny, kSequence };

// ContainsAllTokens, ContainsAnyToken, ContainsTokenSequence. A query with no tokens asserts
// nothing: All and Sequence hold for any text, Any for none. Narrows a column by finding each
// token's bytes in the column's bytes (a row holding a token holds its bytes, ASCII-folded), then
// tests the few rows left exactly.
class TokensLeaf final : public TextLeaf {
 public:
  TokensLeaf(AttrKey key, std::string_view text, TokenMode mode);
  void AddTextConjuncts(std::vector<TextConjunct>* out) const override;

 protected:
  bool TestText(std::string_view text) const override;
  Narrowed NarrowColumn(const AttrColumn& column, RowBits& rows) const override;

 private:
  bool HasToken(std::string_view text, std::string_view folded) const;
  bool HasAll(std::string_view text) const;
  bool HasAny(std::string_view text) const;
  bool HasSequence(std::string_view text) const;

  TokenMode mode_;
  std::vector<std::string> tokens_;     // ASCII-folded; in order for kSequence, else distinct
  std::vector<size_t> fallback_;        // kSequence: KMP failure function over tokens_
  std::vector<std::string> by_length_;  // the distinct tokens, longest (likely rarest) first
};

}  // namespace tessera
