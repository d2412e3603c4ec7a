// A query's filter: the spec's predicate array, validated and compiled once, then evaluated per row
// without allocating, against the stored attribute blob (AttrEncoder format) or against a sealed
// segment's columns, and for a range of rows column by column.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/attr_column.h"
#include "util/row_bits.h"

namespace simdjson::dom {
class element;
}

namespace tessera {

class Predicate;

// A regex's necessary condition from RE2's prefilter: substrings ("atoms") that any string the
// regex matches contains once lowercased, combined by And and Or. RE2 lowercases with Unicode's
// case tables, so U+212A KELVIN SIGN becomes k and U+017F LONG S becomes s.
struct RegexAtoms {
  enum class Op { kAll, kNone, kAtom, kAnd, kOr };  // kAll: no condition; kNone: matches nothing
  Op op = Op::kAll;
  std::string atom;              // kAtom
  std::vector<RegexAtoms> subs;  // kAnd, kOr
};

// A top-level conjunct of a filter that a filter index can serve (see SegmentFilterIndex::Narrow).
struct TextConjunct {
  enum class Kind {
    kAllTokens,  // ContainsAllTokens, and ContainsTokenSequence, which implies it
    kAnyToken,
    kFuzzy,
    kRegex,
  };
  Kind kind;
  std::string key;
  std::vector<std::string> tokens;  // token kinds: the query's distinct tokens, ASCII-folded
  std::string text;                 // kFuzzy: the query text as given
  int max_edits = 0;                // kFuzzy
  RegexAtoms atoms;                 // kRegex
};

// One row's attributes as a filter reads them: each key through the column bound to its slot
// (Filter::keys(); a null column: no row of the segment holds the key; a column without arrays:
// the blob), or every key from the blob when no columns are bound.
struct RowAttrs {
  std::string_view blob;                       // may be empty when every bound column has arrays
  const AttrColumn* const* columns = nullptr;  // by key slot; null: the blob alone
  uint32_t row = 0;

  bool Find(uint32_t slot, std::string_view key, ValueView* v) const {
    if (columns == nullptr) return FindAttr(blob, key, v);
    const AttrColumn* c = columns[slot];
    if (c == nullptr) return false;
    return c->in_blob() ? FindAttr(blob, key, v) : c->Get(row, v);
  }
};

// What narrowing a range of rows by columns achieved (see Filter::Narrow).
enum class Narrowed {
  kNone,      // the columns could not narrow; the rows are untouched
  kSuperset,  // the rows left hold every match, and possibly rows that do not match
  kExact,     // the rows left are exactly the matches
};

// Immutable and thread-safe after Compile; copies share the compiled program.
class Filter {
 public:
  Filter();  // matches everything

  // json: the filter array as parsed from the request body, e.g.
  // [{"Eq":["color",{"Str":"red"}]},{"Not":{"Lt":["n",{"Int":5}]}}]; null is the empty filter.
  // field: the request field errors are reported under ("filter", "queries[2].filter").
  // Throws Error(400) naming the predicate and the problem for any invalid filter.
  static Filter Compile(simdjson::dom::element json, const std::string& field);
  // The same from JSON text (tests and fuzzing; requests are compiled from their parsed body).
  static Filter CompileText(std::string_view json, const std::string& field);

  bool empty() const { return root_ == nullptr; }  // [] matches everything
  bool Matches(std::string_view attrs_blob) const;
  bool Matches(const RowAttrs& row) const;

  // The attribute names the filter reads, each once: a RowAttrs binds a column to each slot.
  const std::vector<std::string>& keys() const;
  // Clears from rows those that cannot match, reading only the bound columns' arrays (columns by
  // key slot, as RowAttrs binds them): top-level conjuncts that compare values are decided
  // exactly, token predicates first by a scan of the column's bytes for each token.
  Narrowed Narrow(const AttrColumn* const* columns, RowBits& rows) const;

  // The text predicates among the filter's top-level conjuncts (an All at top level is flattened;
  // Any and Not are opaque), described once at Compile for the filter indexes.
  const std::vector<TextConjunct>& text_conjuncts() const;

 private:
  Filter(std::shared_ptr<const Predicate> root, std::vector<TextConjunct> conjuncts, std::vector<std::string> keys);
  std::shared_ptr<const Predicate> root_;                       // null = match all
  std::shared_ptr<const std::vector<TextConjunct>> conjuncts_;  // null when empty
  std::shared_ptr<const std::vector<std::string>> keys_;        // null when empty
};

}  // namespace tessera
