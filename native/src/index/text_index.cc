#include "index/text_index.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "analysis/analyzer.h"
#include "storage/segment.h"
#include "util/value.h"

namespace tessera {

bool FieldText(std::string_view attrs, std::string_view field, std::string* scratch, std::string_view* out) {
  ValueView v;
  if (!FindAttr(attrs, field, &v)) return false;
  if (v.tag == ValueTag::kStr) {
    *out = v.s;
    return true;
  }
  if (v.tag != ValueTag::kList) return false;
  scratch->clear();
  for (std::string_view item : ListElements(v)) {
    if (!scratch->empty()) scratch->push_back(' ');
    scratch->append(item);
  }
  *out = *scratch;
  return true;
}

namespace {

size_t LowerBound(const StringColumn& sorted, std::string_view key) {
  size_t lo = 0, hi = sorted.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace

int64_t FieldPostings::Find(std::string_view term) const {
  size_t i = LowerBound(terms, term);
  return i < terms.size() && terms[i] == term ? int64_t(i) : -1;
}

std::pair<size_t, size_t> FieldPostings::PrefixRange(const StringColumn& sorted, std::string_view prefix) {
  size_t first = LowerBound(sorted, prefix), last = first;
  while (last < sorted.size() && sorted[last].substr(0, prefix.size()) == prefix) ++last;
  return {first, last};
}

size_t FieldPostings::bytes() const {
  size_t b = 0;
  auto add = [&](const auto&... members) {
    auto one = [&](const auto& m) {
      if constexpr (requires { m.bytes(); }) b += m.bytes();
    };
    (one(members), ...);
  };
  Layout(add, *this);
  return b;
}

namespace {

// A field's postings while they are built or merged: FieldPostings' arrays as vectors.
struct FieldBuild {
  std::vector<std::string> terms, surfaces;
  std::vector<uint32_t> term_start{0}, docs, tfs, term_positions{0}, positions, doc_len, surface_term;
  uint32_t docs_with_tokens = 0;
  uint64_t total_len = 0;

  // The finished postings, with their pruning bounds; chunk_begin is the chunk's first row.
  FieldPostings Finish(uint32_t chunk_begin) {
    FieldPostings fp;
    std::vector<uint32_t> max_tf(terms.size(), 0), min_dl(terms.size(), UINT32_MAX), block_start{0}, block_max_tf, block_min_dl;
    for (size_t t = 0; t < terms.size(); ++t) {
      for (uint32_t first = term_start[t]; first < term_start[t + 1]; first += kPostingsBlock) {
        uint32_t last = std::min(first + kPostingsBlock, term_start[t + 1]);
        uint32_t tf = 0, dl = UINT32_MAX;
        for (uint32_t i = first; i < last; ++i) {
          tf = std::max(tf, tfs[i]);
          dl = std::min(dl, doc_len[docs[i] - chunk_begin]);
        }
        block_max_tf.push_back(tf);
        block_min_dl.push_back(dl);
        max_tf[t] = std::max(max_tf[t], tf);
        min_dl[t] = std::min(min_dl[t], dl);
      }
      block_start.push_back(uint32_t(block_max_tf.size()));
    }
    fp.terms = StringColumn(terms);
    fp.surfaces = StringColumn(surfaces);
    fp.term_start = std::move(term_start);
    fp.max_tf = std::move(max_tf);
    fp.min_dl = std::move(min_dl);
    fp.block_start = std::move(block_start);
    fp.block_max_tf = std::move(block_max_tf);
    fp.block_min_dl = std::move(block_min_dl);
    fp.docs = std::move(docs);
    fp.tfs = std::move(tfs);
    fp.term_positions = std::move(term_positions);
    fp.positions = std::move(positions);
    fp.doc_len = std::move(doc_len);
    fp.docs_with_tokens = docs_with_tokens;
    fp.total_len = total_len;
    fp.surface_term = std::move(surface_term);
    return fp;
  }
};

struct TermBuild {
  std::vector<uint32_t> docs, tfs, positions;  // positions of each doc in turn, tfs[i] of them
};

FieldPostings BuildField(const Segment& segment, uint32_t begin, uint32_t end, const FtsField& field) {
  Analyzer analyzer(field);
  std::unordered_map<std::string_view, uint32_t> ids;       // term -> build slot
  std::unordered_map<const AnalyzedWord*, uint32_t> slots;  // spelling -> build slot
  std::vector<TermBuild> builds;
  std::vector<std::string> names;
  std::vector<std::pair<std::string, uint32_t>> surfaces;
  FieldBuild fb;
  fb.doc_len.assign(end - begin, 0);
  std::string scratch;
  for (uint32_t r = begin; r < end; ++r) {
    std::string_view text;
    if (!FieldText(segment.row_attrs(r), field.field, &scratch, &text)) continue;
    uint32_t dl = 0;
    analyzer.ForEachToken(text, [&](const AnalyzedWord& word, uint32_t position, WordSpan) {
      auto [slot, fresh_word] = slots.try_emplace(&word, 0);
      if (fresh_word) {
        auto [id, fresh_term] = ids.try_emplace(word.term, uint32_t(builds.size()));
        if (fresh_term) {
          builds.emplace_back();
          names.push_back(word.term);
        }
        slot->second = id->second;
        surfaces.emplace_back(word.surface, id->second);
      }
      TermBuild& b = builds[slot->second];
      // Every position of a term in one document lands together, in order, as the text is read.
      if (b.docs.empty() || b.docs.back() != r) {
        b.docs.push_back(r);
        b.tfs.push_back(0);
      }
      ++b.tfs.back();
      b.positions.push_back(position);
      ++dl;
    });
    if (dl == 0) continue;
    fb.doc_len[r - begin] = dl;
    ++fb.docs_with_tokens;
    fb.total_len += dl;
  }
  std::vector<uint32_t> by_name(names.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  std::vector<uint32_t> rank(names.size());
  for (uint32_t k = 0; k < by_name.size(); ++k) {
    uint32_t id = by_name[k];
    rank[id] = k;
    TermBuild& b = builds[id];
    fb.terms.push_back(std::move(names[id]));
    fb.docs.insert(fb.docs.end(), b.docs.begin(), b.docs.end());
    fb.tfs.insert(fb.tfs.end(), b.tfs.begin(), b.tfs.end());
    fb.positions.insert(fb.positions.end(), b.positions.begin(), b.positions.end());
    fb.term_start.push_back(uint32_t(fb.docs.size()));
    fb.term_positions.push_back(uint32_t(fb.positions.size()));
    b = TermBuild();
  }
  // Spellings that fold alike ("Run", "run") give one surface word.
  std::sort(surfaces.begin(), surfaces.end());
  surfaces.erase(std::unique(surfaces.begin(), surfaces.end()), surfaces.end());
  for (auto& [surface, id] : surfaces) {
    fb.surfaces.push_back(std::move(surface));
    fb.surface_term.push_back(rank[id]);
  }
  return fb.Finish(begin);
}

// Appends term t's postings in src (positions included) to dst's last term.
void CopyPostings(const FieldPostings& src, size_t t, FieldBuild& dst) {
  dst.docs.insert(dst.docs.end(), src.docs.begin() + src.term_start[t], src.docs.begin() + src.term_start[t + 1]);
  dst.tfs.insert(dst.tfs.end(), src.tfs.begin() + src.term_start[t], src.tfs.begin() + src.term_start[t + 1]);
  dst.positions.insert(dst.positions.end(), src.positions.begin() + src.term_positions[t],
                       src.positions.begin() + src.term_positions[t + 1]);
}

// The smallest string at the heads of parts (cursors into each part's sorted list); false when
// every part is exhausted.
bool SmallestHead(const std::vector<const StringColumn*>& parts, const std::vector<size_t>& at, std::string_view* out) {
  bool any = false;
  for (size_t k = 0; k < parts.size(); ++k)
    if (at[k] < parts[k]->size() && (!any || (*parts[k])[at[k]] < *out)) {
      *out = (*parts[k])[at[k]];
      any = true;
    }
  return any;
}

// One field over the rows of consecutive parts: a k-way merge of the term dictionaries whose
// postings concatenate in part order, so each term's rows stay ascending.
FieldPostings MergeField(const std::vector<const FieldPostings*>& parts, uint32_t chunk_begin) {
  FieldBuild m;
  std::vector<const StringColumn*> terms, surfaces;
  std::vector<std::vector<uint32_t>> rank(parts.size());
  for (size_t k = 0; k < parts.size(); ++k) {
    terms.push_back(&parts[k]->terms);
    surfaces.push_back(&parts[k]->surfaces);
    rank[k].resize(parts[k]->terms.size());
  }
  std::vector<size_t> at(parts.size(), 0);
  for (std::string_view term; SmallestHead(terms, at, &term);) {
    uint32_t merged = uint32_t(m.terms.size());
    m.terms.emplace_back(term);
    for (size_t k = 0; k < parts.size(); ++k) {
      const FieldPostings& p = *parts[k];
      size_t i = at[k];
      if (i == p.terms.size() || p.terms[i] != m.terms.back()) continue;
      CopyPostings(p, i, m);
      rank[k][i] = merged;
      ++at[k];
    }
    m.term_start.push_back(uint32_t(m.docs.size()));
    m.term_positions.push_back(uint32_t(m.positions.size()));
  }
  std::fill(at.begin(), at.end(), 0);
  for (std::string_view surface; SmallestHead(surfaces, at, &surface);) {
    m.surfaces.emplace_back(surface);
    bool first = true;
    for (size_t k = 0; k < parts.size(); ++k) {
      const FieldPostings& p = *parts[k];
      if (at[k] == p.surfaces.size() || p.surfaces[at[k]] != m.surfaces.back()) continue;
      if (first) m.surface_term.push_back(rank[k][p.surface_term[at[k]]]);  // a surface always stems alike
      first = false;
      ++at[k];
    }
  }
  for (const FieldPostings* p : parts) {
    m.doc_len.insert(m.doc_len.end(), p->doc_len.begin(), p->doc_len.end());
    m.docs_with_tokens += p->docs_with_tokens;
    m.total_len += p->total_len;
  }
  return m.Finish(chunk_begin);
}

}  // namespace

TextChunkPtr TextChunk::Build(const Segment& segment, uint32_t begin, uint32_t end, const std::vector<FtsField>& fields) {
  auto chunk = std::make_shared<TextChunk>();
  chunk->begin_ = begin;
  chunk->end_ = end;
  for (const FtsField& f : fields) chunk->fields_.push_back(BuildField(segment, begin, end, f));
  chunk->MeasureBytes();
  return chunk;
}

TextChunkPtr TextChunk::Merge(const std::vector<TextChunkPtr>& parts) {
  auto chunk = std::make_shared<TextChunk>();
  chunk->begin_ = parts.front()->begin_;
  chunk->end_ = parts.back()->end_;
  for (size_t f = 0; f < parts.front()->fields_.size(); ++f) {
    std::vector<const FieldPostings*> fields;
    for (const TextChunkPtr& part : parts) fields.push_back(&part->fields_[f]);
    chunk->fields_.push_back(MergeField(fields, chunk->begin_));
  }
  chunk->MeasureBytes();
  return chunk;
}

void TextChunk::MeasureBytes() {
  bytes_ = sizeof(*this);
  for (const FieldPostings& f : fields_) bytes_ += sizeof(f) + f.bytes();
}

SegmentTextPtr SegmentText::Extend(const SegmentTextPtr& base, const Segment& segment, uint32_t end, const std::vector<FtsField>& fields) {
  auto text = std::make_shared<SegmentText>();
  if (base) text->chunks_ = base->chunks_;
  uint32_t begin = text->rows();
  if (end > begin) text->chunks_.push_back(TextChunk::Build(segment, begin, end, fields));
  // Keep every chunk larger than all newer chunks together: merge, all at once, from the oldest
  // chunk that is not. Chunk sizes then at least double going back, so a segment holds at most
  // log2(rows) + 1 chunks, and a row's chunk at least doubles each time it is copied, whatever the
  // sizes of the commits.
  auto& chunks = text->chunks_;
  size_t first = chunks.size();
  uint64_t newer = 0;
  for (size_t i = chunks.size(); i-- > 0;) {
    uint64_t rows = chunks[i]->end() - chunks[i]->begin();
    if (i + 1 < chunks.size() && rows <= newer) first = i;
    newer += rows;
  }
  if (first + 1 < chunks.size()) {
    TextChunkPtr merged = TextChunk::Merge(std::vector<TextChunkPtr>(chunks.begin() + long(first), chunks.end()));
    chunks.erase(chunks.begin() + long(first), chunks.end());
    chunks.push_back(std::move(merged));
  }
  return text;
}

const TextChunk* SegmentText::ChunkOf(uint32_t row) const {
  auto it = std::upper_bound(chunks_.begin(), chunks_.end(), row, [](uint32_t r, const TextChunkPtr& c) { return r < c->end(); });
  return it != chunks_.end() && (*it)->begin() <= row ? it->get() : nullptr;
}

size_t SegmentText::bytes() const {
  size_t b = sizeof(*this);
  for (const TextChunkPtr& c : chunks_) b += c->bytes();
  return b;
}

}  // namespace tessera
