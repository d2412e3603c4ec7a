// One collection's full-text index as a snapshot sees it. Statistics and document frequencies are
// computed over live documents of every segment, so a score never depends on how rows happen to
// be split into segments or chunks.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/snapshot.h"
#include "index/text_index.h"

namespace tessera {

class CollectionText {
 public:
  CollectionText(const CollectionState& collection, uint64_t version) : c_(&collection), version_(version) {}

  const CollectionState& collection() const { return *c_; }
  // The field's index in the schema, or -1 when it is not declared.
  int FieldIndex(std::string_view field) const;
  const FtsField& field(int i) const { return c_->schema->fts[size_t(i)]; }

  struct FieldStats {
    uint64_t docs = 0;       // live documents with at least one indexed token
    uint64_t total_len = 0;  // their indexed tokens
    double avgdl() const { return docs ? double(total_len) / double(docs) : 0; }
  };
  FieldStats Stats(int field) const;
  // Live documents holding term in field.
  uint64_t DocFreq(int field, std::string_view term) const;
  // Distinct terms (stems) that start with prefix, or that an indexed surface word starting with
  // prefix stems to.
  std::vector<std::string> ExpandPrefix(int field, std::string_view prefix) const;
  // Calls fn(surface, term) for each indexed surface word starting with prefix and the term it
  // stems to, chunk by chunk (a word indexed in several chunks comes once per chunk).
  template <typename Fn>
  void ForEachSurface(int field, std::string_view prefix, Fn&& fn) const {
    ForEachChunk([&](const SegmentRef&, const TextChunk& chunk) {
      const FieldPostings& fp = chunk.field(size_t(field));
      auto [first, last] = FieldPostings::PrefixRange(fp.surfaces, prefix);
      for (size_t i = first; i < last; ++i) fn(fp.surfaces[i], fp.terms[fp.surface_term[i]]);
    });
  }

  bool Visible(const SegmentRef& ref, uint32_t row) const { return ref.deleted_rows == 0 || ref.segment->visible(row, version_); }
  // Calls fn(ref, chunk) for every chunk of every segment, in storage order.
  template <typename Fn>
  void ForEachChunk(Fn&& fn) const {
    for (const SegmentRef& ref : c_->segments)
      if (const SegmentTextPtr& text = ref.indexes->text())
        for (const TextChunkPtr& chunk : text->chunks()) fn(ref, *chunk);
  }

 private:
  const CollectionState* c_;
  uint64_t version_;
};

}  // namespace tessera
