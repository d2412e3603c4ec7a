#include "index/filter_index.h"

#include <algorithm>

#include "index/derived_file.h"
#include "index/filter_index_tokens.h"
#include "index/filter_index_trigrams.h"
#include "storage/segment.h"
#include "util/byte_io.h"
#include "util/value.h"

namespace tessera {
namespace {

using Rows = std::vector<uint32_t>;

constexpr DerivedFileKind kFilterFile{0x5245544c49465354, 1};  // "TSFILTER"

// The structures declared for one field.
struct FieldIndex {
  std::string field;
  std::optional<TokenIndex> tokens;
  std::optional<TrigramIndex> trigrams;
};

// What the file depends on: the declared fields in order, with the structures each asks for.
std::string Declaration(const std::vector<FilterIndexField>& fields) {
  std::string d;
  for (const FilterIndexField& f : fields) {
    PutBytes(&d, f.field);
    PutFixed<uint8_t>(&d, uint8_t((f.tokens ? 1 : 0) | (f.trigrams ? 2 : 0)));
  }
  return d;
}

// Feeds the builder every text of the field: a Str, or each element of a List, as the text
// predicates read them. One structure at a time keeps a build's working set in cache.
template <typename Builder>
auto BuildStructure(const Segment& segment, const std::string& field) {
  Builder builder;
  for (uint32_t r = 0; r < segment.appended(); ++r) {
    ValueView v;
    if (!FindAttr(segment.row_attrs(r), field, &v)) continue;
    if (v.tag == ValueTag::kStr) {
      builder.Add(v.s, r);
    } else if (v.tag == ValueTag::kList) {
      for (std::string_view e : ListElements(v)) builder.Add(e, r);
    }
  }
  return builder.Finish(segment.appended());
}

class Index final : public SegmentFilterIndex {
 public:
  Index(uint32_t rows, std::vector<FieldIndex> fields) : rows_(rows), fields_(std::move(fields)) {}

  std::optional<Rows> Narrow(const Filter& filter) const override {
    std::optional<Rows> out;
    for (const TextConjunct& c : filter.text_conjuncts()) {
      IntersectInto(&out, Candidates(c));
      if (out && out->empty()) break;
    }
    return out;
  }

  // The body: each declared structure of each field in declaration order.
  void Save(const std::string& path, const Segment& segment, const std::vector<FilterIndexField>& fields) const override {
    DerivedFileWriter file(kFilterFile, segment.appended(), Declaration(fields));
    for (const FieldIndex& f : fields_) {
      if (f.tokens) file.body()(*f.tokens);
      if (f.trigrams) file.body()(*f.trigrams);
    }
    file.Save(path);
  }

  bool mapped() const override {
    for (const FieldIndex& f : fields_)
      if ((f.tokens && f.tokens->mapped()) || (f.trigrams && f.trigrams->mapped())) return true;
    return false;
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
  for (const FilterIndexField& f : fields) {
    FieldIndex& index = built.emplace_back(FieldIndex{f.field, std::nullopt, std::nullopt});
    if (f.tokens) index.tokens = BuildStructure<TokenIndex::Builder>(segment, f.field);
    if (f.trigrams) index.trigrams = BuildStructure<TrigramIndex::Builder>(segment, f.field);
  }
  return std::make_shared<Index>(segment.appended(), std::move(built));
}

std::shared_ptr<const SegmentFilterIndex> SegmentFilterIndex::Open(const std::string& path, const Segment& segment,
                                                                   const std::vector<FilterIndexField>& fields) {
  std::optional<BlockReader> body = OpenDerivedFile(path, kFilterFile, segment.appended(), Declaration(fields));
  if (!body) return nullptr;
  std::vector<FieldIndex> opened;
  try {
    for (const FilterIndexField& f : fields) {
      FieldIndex& index = opened.emplace_back(FieldIndex{f.field, std::nullopt, std::nullopt});
      if (f.tokens) (*body)(index.tokens.emplace());
      if (f.trigrams) (*body)(index.trigrams.emplace());
      if (index.trigrams && !index.trigrams->Covers(segment.appended())) return nullptr;
    }
  } catch (const Error&) {
    return nullptr;  // a layout that runs past the file: rebuilt like a damaged one
  }
  if (!body->done()) return nullptr;
  return std::make_shared<Index>(segment.appended(), std::move(opened));
}

bool SegmentFilterIndex::Saved(const std::string& path, const Segment& segment, const std::vector<FilterIndexField>& fields) {
  return DerivedFileMatches(path, kFilterFile, segment.appended(), Declaration(fields));
}

}  // namespace tessera
