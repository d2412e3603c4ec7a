// Full-text postings of one segment, per declared field: a sorted term dictionary (stems) with
// per-document term frequencies and positions, per-document lengths, and the surface words that
// stem to each term (for prefix expansion and suggest).
//
// A segment's postings are a list of immutable chunks over consecutive row ranges. The writer
// indexes newly committed rows as a new chunk when it publishes a snapshot and merges the newest
// chunks whenever they outgrow an older one (so a segment holds O(log rows) chunks); a snapshot
// holds the exact chunk list for the rows it sees. Deleted rows stay in the postings and are skipped by readers.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/fts_field.h"
#include "util/column.h"

namespace tessera {

class Segment;

constexpr uint32_t kPostingsBlock = 128;

// A field's postings over one chunk. Built in memory or viewed in the segment's saved file alike.
struct FieldPostings {
  StringColumn terms;           // sorted, distinct
  Column<uint32_t> term_start;  // terms.size() + 1 offsets into docs and tfs
  // Bounds for dynamic pruning: per term, and per block of kPostingsBlock of its postings, the
  // largest tf and the holders' smallest length, which bound any BM25 contribution there.
  Column<uint32_t> max_tf, min_dl;              // per term
  Column<uint32_t> block_start;                 // terms.size() + 1 offsets into the block arrays
  Column<uint32_t> block_max_tf, block_min_dl;  // per block
  Column<uint32_t> docs;                        // segment rows, ascending within a term
  Column<uint32_t> tfs;
  // Each posting's tf positions in turn, term by term: term t's start at term_positions[t], and
  // its i-th posting's after the tfs of the postings before it.
  Column<uint32_t> term_positions;  // terms.size() + 1 offsets into positions
  Column<uint32_t> positions;
  Column<uint32_t> doc_len;  // indexed tokens per row of the chunk (0: no tokens)
  uint32_t docs_with_tokens = 0;
  uint64_t total_len = 0;
  StringColumn surfaces;          // sorted, distinct
  Column<uint32_t> surface_term;  // the term each surface word stems to

  // Index of term in terms, or -1.
  int64_t Find(std::string_view term) const;
  // Indexes [first, last) of the sorted strings that start with prefix.
  static std::pair<size_t, size_t> PrefixRange(const StringColumn& sorted, std::string_view prefix);
  // Bytes of its arrays, held in memory or mapped from a file alike.
  size_t bytes() const;

  // Its members in file order (util/block_io.h).
  template <typename A, typename Self>
  static void Layout(A& a, Self& p) {
    a(p.terms, p.term_start, p.max_tf, p.min_dl, p.block_start, p.block_max_tf, p.block_min_dl, p.docs, p.tfs, p.term_positions,
      p.positions, p.doc_len, p.docs_with_tokens, p.total_len, p.surfaces, p.surface_term);
  }
};

class TextChunk {
 public:
  // Indexes rows [begin, end) of segment for fields (parallel to the schema).
  static std::shared_ptr<const TextChunk> Build(const Segment& segment, uint32_t begin, uint32_t end, const std::vector<FtsField>& fields);
  // One chunk over the rows of consecutive chunks (each one's end is the next one's begin).
  static std::shared_ptr<const TextChunk> Merge(const std::vector<std::shared_ptr<const TextChunk>>& parts);

  uint32_t begin() const { return begin_; }
  uint32_t end() const { return end_; }
  const FieldPostings& field(size_t i) const { return fields_[i]; }
  size_t fields() const { return fields_.size(); }
  size_t bytes() const { return bytes_; }
  // Whether its arrays are views of a saved file.
  bool mapped() const { return !fields_.empty() && fields_.front().docs.mapped(); }

  // Its members in file order (util/block_io.h).
  template <typename A, typename Self>
  static void Layout(A& a, Self& c) {
    a(c.begin_, c.end_, c.fields_);
  }
  void MeasureBytes();  // once, when built or opened: /stats must not walk every term

 private:
  uint32_t begin_ = 0, end_ = 0;
  size_t bytes_ = 0;
  std::vector<FieldPostings> fields_;
};

using TextChunkPtr = std::shared_ptr<const TextChunk>;

class SegmentText;
using SegmentTextPtr = std::shared_ptr<const SegmentText>;

class SegmentText {
 public:
  // base (may be null) with rows [base rows, end) indexed as a new chunk, merged as described above.
  static SegmentTextPtr Extend(const SegmentTextPtr& base, const Segment& segment, uint32_t end, const std::vector<FtsField>& fields);
  // The postings saved at path for segment's rows under fields, or null when there are none that
  // match (index/derived_file.h). Only what the analyzer reads of fields counts: BM25's k1 and b
  // apply at query time.
  static SegmentTextPtr Open(const std::string& path, const Segment& segment, const std::vector<FtsField>& fields);
  // Writes them durably at path; they must cover segment's rows.
  void Save(const std::string& path, const Segment& segment, const std::vector<FtsField>& fields) const;
  // Whether path already holds postings of segment's rows under fields (judged by its header).
  static bool Saved(const std::string& path, const Segment& segment, const std::vector<FtsField>& fields);
  const std::vector<TextChunkPtr>& chunks() const { return chunks_; }
  uint32_t rows() const { return chunks_.empty() ? 0 : chunks_.back()->end(); }
  // The chunk holding row, or null.
  const TextChunk* ChunkOf(uint32_t row) const;
  size_t bytes() const;
  bool mapped() const { return !chunks_.empty() && chunks_.front()->mapped(); }

 private:
  std::vector<TextChunkPtr> chunks_;
};

// The text a field indexes in one record: a Str as is, a List joined with single spaces. False
// when the record lacks the attribute or holds another type. scratch backs *out for Lists.
bool FieldText(std::string_view attrs, std::string_view field, std::string* scratch, std::string_view* out);

}  // namespace tessera
