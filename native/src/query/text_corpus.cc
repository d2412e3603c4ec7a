#include "query/text_corpus.h"

#include <set>

namespace tessera {

int CollectionText::FieldIndex(std::string_view field) const {
  const std::vector<FtsField>& fts = c_->schema->fts;
  for (size_t i = 0; i < fts.size(); ++i)
    if (fts[i].field == field) return int(i);
  return -1;
}

CollectionText::FieldStats CollectionText::Stats(int field) const {
  FieldStats s;
  ForEachChunk([&](const SegmentRef& ref, const TextChunk& chunk) {
    const FieldPostings& fp = chunk.field(size_t(field));
    if (ref.deleted_rows == 0) {
      s.docs += fp.docs_with_tokens;
      s.total_len += fp.total_len;
      return;
    }
    for (uint32_t r = chunk.begin(); r < chunk.end(); ++r) {
      uint32_t dl = fp.doc_len[r - chunk.begin()];
      if (dl == 0 || !Visible(ref, r)) continue;
      ++s.docs;
      s.total_len += dl;
    }
  });
  return s;
}

uint64_t CollectionText::DocFreq(int field, std::string_view term) const {
  uint64_t df = 0;
  ForEachChunk([&](const SegmentRef& ref, const TextChunk& chunk) {
    const FieldPostings& fp = chunk.field(size_t(field));
    int64_t t = fp.Find(term);
    if (t < 0) return;
    uint32_t first = fp.term_start[size_t(t)], last = fp.term_start[size_t(t) + 1];
    if (ref.deleted_rows == 0) {
      df += last - first;
      return;
    }
    for (uint32_t p = first; p < last; ++p) df += Visible(ref, fp.docs[p]) ? 1 : 0;
  });
  return df;
}

std::vector<std::string> CollectionText::ExpandPrefix(int field, std::string_view prefix) const {
  std::set<std::string> terms;
  ForEachChunk([&](const SegmentRef&, const TextChunk& chunk) {
    const FieldPostings& fp = chunk.field(size_t(field));
    auto [first, last] = FieldPostings::PrefixRange(fp.terms, prefix);
    for (size_t i = first; i < last; ++i) terms.emplace(fp.terms[i]);
  });
  ForEachSurface(field, prefix, [&](std::string_view, std::string_view term) { terms.emplace(term); });
  return {terms.begin(), terms.end()};
}

}  // namespace tessera
