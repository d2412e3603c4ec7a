#include "tessera/filter_index.h"

#include <algorithm>

#include "filter_index_tokens.h"
#include "filter_index_trigrams.h"
#include "tessera/segment.h"
#include "tessera/value.h"

namespace tessera {
namespace {

using Rows = std::vector<uint32_t>;

// The structures declared for one field.
struct FieldIndex {
  std::string field;
  std::optional<TokenIndex> tokens;
  std::optional<TrigramIndex> trigrams;
};

FieldIndex BuildField(const Segment& segment, const FilterIndexField& declared) {
  std::optional<TokenIndex::Builder> tokens;
  std::optional<TrigramIndex::Builder> trigrams;
  if (declared.tokens) tokens.emplace();
  if (declared.trigrams) trigrams.emplace();
  auto add = [&](std::string_view text, uint32_t row) {
    if (tokens) tokens->Add(text, row);
    if (trigrams) trigrams->Add(text, row);
  };
  // The text predicates read a Str, or each element of a List.
  for (uint32_t r = 0; r < segment.appended(); ++r) {
    ValueView v;
    if (!FindAttr(segment.row_attrs(r), declared.field, &v)) continue;
    if (v.tag == ValueTag::kStr) {
      add(v.s, r);
    } else if (v.tag == ValueTag::kList) {
      for (std::string_view e : ListElements(v)) add(e, r);
    }
  }
  FieldIndex out{declared.field, std::nullopt, std::nullopt};
  if (tokens) out.tokens = tokens->Finish();
  if (trigrams) out.trigrams = trigrams->Finish(segment.appended());
  return out;
}

class Index final : public SegmentFilterIndex {
 public:
  Index(uint32_t rows, std::vector<FieldIndex> fields) : rows_(rows), fields_(std::move(fields)) {}

  std::optional<Rows> Narrow(const Filter& filter) const override {
    std::optional<Rows> out;
    for (const TextConjunct& c : filter.text_conjuncts()) {
      std::optional<Rows> rows = Candidates(c);
      if (!rows) continue;
      out = out ? Intersect(*out, *rows) : std::move(rows);
      if (out->empty()) break;
    }
    return out;
  }

  size_t bytes() const override {
    size_t n = sizeof(*this) + fields_.capacity() * sizeof(FieldIndex);
    for (const FieldIndex& f : fields_) {
      n += f.field.capacity() + (f.tokens ? f.tokens->bytes() : 0) + (f.trigrams ? f.trigrams->bytes() : 0);
    }
    return n;
  }

 private:
  // A superset of the rows the conjunct accepts; nullopt when no declared structure serves it.
  std::optional<Rows> Candidates(const TextConjunct& c) const {
    auto f = std::find_if(fields_.begin(), fields_.end(), [&](const FieldIndex& f) { return f.field == c.key; });
    if (f == fields_.end()) return std::nullopt;
    switch (c.kind) {
      case TextConjunct::Kind::kAllTokens:
        if (f->tokens) return f->tokens->AllTokens(c.tokens);
        break;
      case TextConjunct::Kind::kAnyToken:
        if (f->tokens) return f->tokens->AnyToken(c.tokens, rows_);
        break;
      case TextConjunct::Kind::kFuzzy:
        if (f->trigrams) return f->trigrams->Fuzzy(c.text, c.max_edits);
        break;
      case TextConjunct::Kind::kRegex:
        if (f->trigrams) return f->trigrams->Regex(c.atoms, rows_);
        break;
    }
    return std::nullopt;
  }

  uint32_t rows_;
  std::vector<FieldIndex> fields_;
};

}  // namespace

std::shared_ptr<const SegmentFilterIndex> SegmentFilterIndex::Build(const Segment& segment, const std::vector<FilterIndexField>& fields) {
  std::vector<FieldIndex> built;
  for (const FilterIndexField& f : fields) built.push_back(BuildField(segment, f));
  return std::make_shared<Index>(segment.appended(), std::move(built));
}

}  // namespace tessera
