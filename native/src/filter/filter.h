// A query's filter: the spec's predicate array, validated and compiled once, then evaluated per row
// against the stored attribute blob (AttrEncoder format) without allocating.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

  // The text predicates among the filter's top-level conjuncts (an All at top level is flattened;
  // Any and Not are opaque), described once at Compile for the filter indexes.
  const std::vector<TextConjunct>& text_conjuncts() const;

 private:
  Filter(std::shared_ptr<const Predicate> root, std::vector<TextConjunct> conjuncts);
  std::shared_ptr<const Predicate> root_;                       // null = match all
  std::shared_ptr<const std::vector<TextConjunct>> conjuncts_;  // null when empty
};

}  // namespace tessera
