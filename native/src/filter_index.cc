#include "tessera/filter_index.h"

#include <algorithm>

#include "filter_index_postings.h"
#include "tessera/segment.h"
#include "tessera/text_match.h"
#include "tessera/value.h"

namespace tessera {
namespace {

using Rows = std::vector<uint32_t>;

// A token's key: 64-bit FNV-1a of its ASCII-folded bytes. Tokens that collide share a list, which
// only widens the candidates the filter verifies.
uint64_t TokenKey(std::string_view token) {
  uint64_t h = 14695981039346656037ull;
  for (char c : token) h = (h ^ uint8_t(AsciiLower(c))) * 1099511628211ull;
  return h;
}

// Calls f on each text a text predicate reads in the value: a Str, or each element of a List.
template <typename F>
void ForEachText(const ValueView& v, F&& f) {
  if (v.tag == ValueTag::kStr) {
    f(v.s);
  } else if (v.tag == ValueTag::kList) {
    for (std::string_view e : ListElements(v)) f(e);
  }
}

PostingIndex BuildTokens(const Segment& segment, const std::string& field) {
  PostingIndex::Builder builder;
  for (uint32_t r = 0; r < segment.appended(); ++r) {
    ValueView v;
    if (!FindAttr(segment.row_attrs(r), field, &v)) continue;
    ForEachText(v, [&](std::string_view text) {
      TokenIterator it(text);
      std::string_view token;
      while (it.Next(&token)) builder.Add(TokenKey(token), r);
    });
  }
  return builder.Finish();
}

// Rows holding every token (over all of a List's elements, a superset of rows where one element
// holds them all); nullopt for no tokens, which asserts nothing.
std::optional<Rows> AllTokens(const PostingIndex& index, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return std::nullopt;
  std::vector<PostingList> lists;
  for (const std::string& t : tokens) {
    lists.push_back(index.Find(TokenKey(t)));
    if (lists.back().empty()) return Rows();
  }
  std::sort(lists.begin(), lists.end(), [](const PostingList& a, const PostingList& b) { return a.encoded_size() < b.encoded_size(); });
  Rows rows = lists[0].Decode();
  for (size_t i = 1; i < lists.size() && !rows.empty(); ++i) rows = Intersect(rows, lists[i].Decode());
  return rows;
}

// Rows holding any token; none for no tokens, which ContainsAnyToken never matches.
Rows AnyToken(const PostingIndex& index, const std::vector<std::string>& tokens, uint32_t segment_rows) {
  RowUnion rows(segment_rows);
  for (const std::string& t : tokens) index.Find(TokenKey(t)).ForEach([&](uint32_t r) { rows.Add(r); });
  return rows.Rows();
}

// The structures declared for one field.
struct FieldIndex {
  std::string field;
  std::optional<PostingIndex> tokens;
};

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
    size_t n = sizeof(*this);
    for (const FieldIndex& f : fields_) n += sizeof(f) + f.field.capacity() + (f.tokens ? f.tokens->bytes() : 0);
    return n;
  }

 private:
  // A superset of the rows the conjunct accepts; nullopt when no structure serves it.
  std::optional<Rows> Candidates(const TextConjunct& c) const {
    auto f = std::find_if(fields_.begin(), fields_.end(), [&](const FieldIndex& f) { return f.field == c.key; });
    if (f == fields_.end()) return std::nullopt;
    switch (c.kind) {
      case TextConjunct::Kind::kAllTokens:
        if (f->tokens) return AllTokens(*f->tokens, c.tokens);
        break;
      case TextConjunct::Kind::kAnyToken:
        if (f->tokens) return AnyToken(*f->tokens, c.tokens, rows_);
        break;
      case TextConjunct::Kind::kFuzzy:
      case TextConjunct::Kind::kRegex:
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
    FieldIndex& index = built.emplace_back();
    index.field = f.field;
    if (f.tokens) index.tokens = BuildTokens(segment, f.field);
  }
  return std::make_shared<Index>(segment.appended(), std::move(built));
}

}  // namespace tessera
