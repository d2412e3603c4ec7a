#include "filter/filter.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "filter/predicates.h"
#include "tessera/error.h"
#include "util/json_reader.h"

namespace tessera {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Bounds the recursion of both compiling and evaluating (All, Any and Not nest).
constexpr int kMaxDepth = 32;

constexpr const char* kVariants =
    "Eq, Ne, In, NotIn, Lt, Le, Gt, Ge, Glob, IGlob, Regex, Contains, NotContains, ContainsAny, Fuzzy, "
    "ContainsAllTokens, ContainsAnyToken, ContainsTokenSequence, All, Any or Not";

[[noreturn]] void Bad(const std::string& m) { throw BadRequest(m); }

std::string Index(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

array ExpectArray(element e, const std::string& where, const char* what) {
  if (e.type() != element_type::ARRAY) Bad(where + " must be " + what + ", got " + JsonTypeName(e.type()));
  return e.get_array().value();
}

// The names leaves read, each given a slot as first named.
class KeySlots {
 public:
  AttrKey Of(std::string name) {
    auto it = std::find(names_.begin(), names_.end(), name);
    uint32_t slot = uint32_t(it - names_.begin());
    if (it == names_.end()) names_.push_back(name);
    return AttrKey{std::move(name), slot};
  }
  std::vector<std::string> Take() { return std::move(names_); }

 private:
  std::vector<std::string> names_;
};

// The argument array of a leaf, checked for its length and its key.
std::vector<element> LeafArgs(element e, const std::string& where, const char* shape, size_t n) {
  std::string expect = std::string("an array ") + shape;
  array args = ExpectArray(e, where, expect.c_str());
  if (args.size() != n) Bad(where + " must be " + expect + ", got " + std::to_string(args.size()) + " elements");
  std::vector<element> out(args.begin(), args.end());
  if (out[0].type() != element_type::STRING) Bad(where + "[0] (the attribute key) must be a string, got " + JsonTypeName(out[0].type()));
  return out;
}

Constant ParseValue(element v, const std::string& where) {
  JsonValue parsed = ReadJsonValue(v, where);
  Constant c;
  c.tag = parsed.tag;
  c.i = parsed.i;
  c.f = parsed.f;
  c.s = std::string(parsed.s);
  c.list.assign(parsed.list.begin(), parsed.list.end());
  return c;
}

std::vector<Constant> ParseValues(element e, const std::string& where) {
  std::vector<Constant> out;
  size_t i = 0;
  for (element v : ExpectArray(e, where, "an array of Values")) out.push_back(ParseValue(v, Index(where, i++)));
  return out;
}

// Contains, NotContains and ContainsAny name whole List elements, which are strings.
std::string ParseElement(element v, const std::string& where) {
  Constant c = ParseValue(v, where);
  if (c.tag != ValueTag::kStr) Bad(where + " must be a {\"Str\": ...} Value: List elements are strings");
  return c.s;
}

int ParseMaxEdits(element e, const std::string& where) {
  double v;
  switch (e.type()) {
    case element_type::INT64: v = double(e.get_int64().value()); break;
    case element_type::UINT64: v = double(e.get_uint64().value()); break;
    case element_type::DOUBLE: v = e.get_double().value(); break;
    default: Bad(where + " (max_edits) must be an integer from 0 to 8, got " + JsonTypeName(e.type()));
  }
  if (v != std::floor(v) || v < 0 || v > kMaxFuzzyEdits) {
    Bad(where + " (max_edits) must be an integer from 0 to " + std::to_string(kMaxFuzzyEdits) + ", got " + simdjson::to_string(e) +
        " (a budget above " + std::to_string(kMaxFuzzyEdits) + " is an error, not clamped)");
  }
  return int(v);
}

const std::pair<const char*, CompareOp> kCompareOps[] = {
    {"Eq", CompareOp::kEq}, {"Ne", CompareOp::kNe}, {"Lt", CompareOp::kLt},
    {"Le", CompareOp::kLe}, {"Gt", CompareOp::kGt}, {"Ge", CompareOp::kGe},
};

const std::pair<const char*, TokenMode> kTokenModes[] = {
    {"ContainsAllTokens", TokenMode::kAll},
    {"ContainsAnyToken", TokenMode::kAny},
    {"ContainsTokenSequence", TokenMode::kSequence},
};

PredicatePtr ParsePredicate(element e, const std::string& where, int depth, KeySlots& keys);

std::vector<PredicatePtr> ParsePredicates(array list, const std::string& where, int depth, KeySlots& keys) {
  std::vector<PredicatePtr> out;
  size_t i = 0;
  for (element p : list) out.push_back(ParsePredicate(p, Index(where, i++), depth, keys));
  return out;
}

PredicatePtr ParseLeaf(const std::string& where, const std::string& name, element args, KeySlots& keys) {
  std::string at = where + "." + name;
  auto key = [&](element e) { return keys.Of(JsonString(e, at)); };
  for (const auto& [variant, op] : kCompareOps) {
    if (name == variant) {
      auto a = LeafArgs(args, at, "[key, Value]", 2);
      return std::make_unique<CompareLeaf>(key(a[0]), op, ParseValue(a[1], at + "[1]"));
    }
  }
  for (const auto& [variant, mode] : kTokenModes) {
    if (name == variant) {
      auto a = LeafArgs(args, at, "[key, text]", 2);
      return std::make_unique<TokensLeaf>(key(a[0]), JsonString(a[1], at + "[1] (text)"), mode);
    }
  }
  if (name == "In" || name == "NotIn") {
    auto a = LeafArgs(args, at, "[key, [Value, ...]]", 2);
    return std::make_unique<InLeaf>(key(a[0]), ParseValues(a[1], at + "[1]"), name == "NotIn");
  }
  if (name == "Contains" || name == "NotContains") {
    auto a = LeafArgs(args, at, "[key, Value]", 2);
    std::vector<std::string> one{ParseElement(a[1], at + "[1]")};
    return std::make_unique<ContainsLeaf>(key(a[0]), std::move(one), name == "NotContains");
  }
  if (name == "ContainsAny") {
    auto a = LeafArgs(args, at, "[key, [Value, ...]]", 2);
    std::vector<std::string> elements;
    size_t i = 0;
    for (element v : ExpectArray(a[1], at + "[1]", "an array of Values")) elements.push_back(ParseElement(v, Index(at + "[1]", i++)));
    return std::make_unique<ContainsLeaf>(key(a[0]), std::move(elements), false);
  }
  if (name == "Glob" || name == "IGlob") {
    auto a = LeafArgs(args, at, "[key, pattern]", 2);
    std::string pattern = JsonString(a[1], at + "[1] (pattern)");
    GlobPattern glob;
    std::string error;
    if (!GlobPattern::Parse(pattern, name == "IGlob", &glob, &error)) Bad(at + ": pattern '" + pattern + "' " + error);
    return std::make_unique<GlobLeaf>(key(a[0]), std::move(glob));
  }
  if (name == "Regex") {
    auto a = LeafArgs(args, at, "[key, pattern]", 2);
    std::string pattern = JsonString(a[1], at + "[1] (pattern)");
    std::string error;
    auto leaf = RegexLeaf::Compile(key(a[0]), pattern, &error);
    if (!leaf) Bad(at + ": pattern '" + pattern + "' does not parse: " + error);
    return leaf;
  }
  if (name == "Fuzzy") {
    auto a = LeafArgs(args, at, "[key, text, max_edits]", 3);
    std::string text = JsonString(a[1], at + "[1] (text)");
    return std::make_unique<FuzzyLeaf>(key(a[0]), text, ParseMaxEdits(a[2], at + "[2]"));
  }
  Bad(where + ": unknown predicate '" + name + "'; use " + kVariants);
}

PredicatePtr ParsePredicate(element e, const std::string& where, int depth, KeySlots& keys) {
  if (depth > kMaxDepth) Bad(where + ": predicates nest more than " + std::to_string(kMaxDepth) + " levels deep");
  if (e.type() != element_type::OBJECT || object(e.get_object()).size() != 1) {
    std::string got = e.type() == element_type::OBJECT ? "an object with " + std::to_string(object(e.get_object()).size()) + " keys"
                                                       : JsonTypeName(e.type());
    Bad(where +
        " must be a predicate: an object with one key naming the variant, e.g. "
        "{\"Eq\": [\"color\", {\"Str\": \"red\"}]}; got " +
        got);
  }
  auto [variant, args] = *object(e.get_object()).begin();
  std::string name(variant);
  std::string at = where + "." + name;
  if (name == "All") return std::make_unique<AllOf>(ParsePredicates(ExpectArray(args, at, "an array of predicates"), at, depth + 1, keys));
  if (name == "Any") return std::make_unique<AnyOf>(ParsePredicates(ExpectArray(args, at, "an array of predicates"), at, depth + 1, keys));
  if (name == "Not") {
    if (args.type() == element_type::ARRAY) {
      array one = args.get_array().value();
      if (one.size() != 1) Bad(at + " takes one predicate, got an array of " + std::to_string(one.size()));
      args = one.at(0).value();
    }
    return std::make_unique<NotOf>(ParsePredicate(args, at, depth + 1, keys));
  }
  return ParseLeaf(where, name, args, keys);
}

}  // namespace

Filter::Filter() = default;

Filter::Filter(std::shared_ptr<const Predicate> root, std::vector<TextConjunct> conjuncts, std::vector<std::string> keys)
    : root_(std::move(root)) {
  if (!conjuncts.empty()) conjuncts_ = std::make_shared<const std::vector<TextConjunct>>(std::move(conjuncts));
  if (!keys.empty()) keys_ = std::make_shared<const std::vector<std::string>>(std::move(keys));
}

Filter Filter::Compile(element json, const std::string& field) {
  if (json.type() == element_type::NULL_VALUE) return Filter();
  KeySlots keys;
  std::vector<PredicatePtr> predicates =
      ParsePredicates(ExpectArray(json, field, "an array of predicates (AND-combined; [] matches everything)"), field, 1, keys);
  if (predicates.empty()) return Filter();
  std::shared_ptr<const Predicate> root;
  if (predicates.size() == 1) {
    root = std::move(predicates[0]);
  } else {
    root = std::make_shared<AllOf>(std::move(predicates));
  }
  std::vector<TextConjunct> conjuncts;
  root->AddTextConjuncts(&conjuncts);
  return Filter(std::move(root), std::move(conjuncts), keys.Take());
}

Filter Filter::CompileText(std::string_view json, const std::string& field) {
  simdjson::dom::parser parser;
  simdjson::padded_string copy(json);
  auto parsed = parser.parse(copy);
  if (parsed.error()) Bad(field + " is not valid JSON: " + simdjson::error_message(parsed.error()));
  return Compile(parsed.value(), field);
}

bool Filter::Matches(std::string_view attrs_blob) const { return root_ == nullptr || root_->Matches(RowAttrs{attrs_blob}); }

bool Filter::Matches(const RowAttrs& row) const { return root_ == nullptr || root_->Matches(row); }

const std::vector<std::string>& Filter::keys() const {
  static const std::vector<std::string> kNone;
  return keys_ ? *keys_ : kNone;
}

Narrowed Filter::Narrow(const AttrColumn* const* columns, RowBits& rows) const {
  return root_ == nullptr ? Narrowed::kExact : root_->Narrow(columns, rows);
}

const std::vector<TextConjunct>& Filter::text_conjuncts() const {
  static const std::vector<TextConjunct> kNone;
  return conjuncts_ ? *conjuncts_ : kNone;
}

}  // namespace tessera
