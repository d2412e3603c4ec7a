// A query's filter: the spec's predicate array, validated and compiled once, then evaluated per row
// against the stored attribute blob (AttrEncoder format) without allocating.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace tessera {

class Predicate;

// Immutable and thread-safe after Compile; copies share the compiled program.
class Filter {
 public:
  Filter();  // matches everything

  // json: the filter array, e.g. [{"Eq":["color",{"Str":"red"}]},{"Not":{"Lt":["n",{"Int":5}]}}].
  // field: the request field errors are reported under ("filter", "queries[2].filter").
  // Throws Error(400) naming the predicate and the problem for any invalid filter.
  static Filter Compile(std::string_view json, const std::string& field);

  bool empty() const { return root_ == nullptr; }  // [] matches everything
  bool Matches(std::string_view attrs_blob) const;

 private:
  explicit Filter(std::shared_ptr<const Predicate> root) : root_(std::move(root)) {}
  std::shared_ptr<const Predicate> root_;  // null = match all
};

}  // namespace tessera
