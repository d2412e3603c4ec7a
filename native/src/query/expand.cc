#include "query/expand.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <utility>

#include "filter/filter.h"
#include "query/live_rows.h"
#include "query/scan.h"
#include "util/json_writer.h"
#include "util/value.h"

namespace tessera {
namespace {

// Offsets are read from the reserved key whatever the other three attributes are named: only the
// store's chunker writes them (spec: Reserved attribute keys).
constexpr std::string_view kCharStartField = "svc.char_start";

// Whether a byte of UTF-8 starts a code point (is not a continuation byte).
bool StartsCodePoint(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// s without its first n code points.
std::string_view DropCodePoints(std::string_view s, int64_t n) {
  size_t pos = 0;
  for (; pos < s.size(); ++pos)
    if (StartsCodePoint(s[pos]) && n-- == 0) break;
  return s.substr(pos);
}

// The code points [begin, end) of the source text a chunk is the slice of; nullopt without a
// usable offset.
struct SourceSpan {
  int64_t begin, end;
};
std::optional<SourceSpan> SpanOf(const ChunkText& c) {
  if (!c.char_start || *c.char_start < 0) return std::nullopt;
  int64_t length = std::count_if(c.text.begin(), c.text.end(), StartsCodePoint);
  if (*c.char_start > INT64_MAX - length) return std::nullopt;
  return SourceSpan{*c.char_start, *c.char_start + length};
}

// A chunk and the id of the record it was read from.
struct Chunk {
  ChunkText text;
  std::string_view id;
};

// A stored row read as a chunk, its parent in *parent; false when the row is not a chunk (a
// coordinate or the text missing or of another type).
bool ReadChunk(const Segment& seg, uint32_t row, const ExpandParams& p, std::string_view* parent, Chunk* chunk) {
  std::string_view attrs = seg.row_attrs(row);
  ValueView v;
  if (!FindAttr(attrs, p.parent_field, &v) || v.tag != ValueTag::kStr) return false;
  *parent = v.s;
  if (!FindAttr(attrs, p.index_field, &v) || v.tag != ValueTag::kInt) return false;
  chunk->text.index = v.i;
  if (!FindAttr(attrs, p.text_field, &v) || v.tag != ValueTag::kStr) return false;
  chunk->text.text = v.s;
  chunk->text.char_start.reset();
  if (FindAttr(attrs, kCharStartField, &v) && v.tag == ValueTag::kInt) chunk->text.char_start = v.i;
  chunk->id = seg.row_id(row);
  return true;
}

// The id the store gives chunk `index` of `parent` (spec: Chunking rules). The decimal index holds
// no '#', so distinct (parent, index) pairs never share one.
std::string ChunkId(std::string_view parent, int64_t index) { return std::string(parent) + "#" + std::to_string(index); }

// The indexes within radius of index, clamped to the Int range.
std::pair<int64_t, int64_t> Window(int64_t index, uint32_t radius) {
  int64_t r = radius;
  return {index < INT64_MIN + r ? INT64_MIN : index - r, index > INT64_MAX - r ? INT64_MAX : index + r};
}

// One document of the page: the indexes its hits' windows cover and the chunks read for them.
struct Document {
  bool chunk_ids = true;            // every hit of it has the id "{parent}#{index}"
  std::set<int64_t> wanted;         // every index within radius of a hit's, the hits' own included
  std::map<int64_t, Chunk> chunks;  // by index: the hits and the neighbours found

  // Two rows can hold one index only in a corpus written without the store's chunk ids; the
  // smaller id wins, so a context never depends on the order rows are read in.
  void Offer(const Chunk& chunk) {
    auto [it, added] = chunks.try_emplace(chunk.text.index, chunk);
    if (!added && chunk.id < it->second.id) it->second = chunk;
  }
};

// One collection's documents on the page, by parent.
using Documents = std::map<std::string_view, Document>;

// The neighbours of the documents whose hits carry chunk ids, looked up by id; a record found is
// used only when its own parent and index are the ones its id names.
void ReadById(const QueryContext& ctx, const CollectionState& c, const ExpandParams& p, Documents& docs) {
  struct Wanted {
    Documents::value_type* doc;
    int64_t index;
  };
  std::vector<std::string> ids;
  std::vector<Wanted> wanted;
  for (Documents::value_type& entry : docs) {
    if (!entry.second.chunk_ids) continue;
    for (int64_t index : entry.second.wanted) {
      if (entry.second.chunks.count(index)) continue;  // a hit: the record with that id
      ids.push_back(ChunkId(entry.first, index));
      wanted.push_back({&entry, index});
    }
  }
  if (ids.empty()) return;
  std::vector<LiveRow> rows = FindLiveRows(c, ctx.snap.version, std::vector<std::string_view>(ids.begin(), ids.end()), ctx.cancel);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string_view parent;
    Chunk chunk;
    if (rows[i].segment == nullptr || !ReadChunk(*rows[i].segment, rows[i].row, p, &parent, &chunk)) continue;
    if (parent == wanted[i].doc->first && chunk.text.index == wanted[i].index) wanted[i].doc->second.Offer(chunk);
  }
}

// The filter [{"In": [parent_field, [{"Str": parent}, ...]]}]: every chunk of these parents.
Filter ParentsFilter(const std::string& parent_field, const std::vector<std::string_view>& parents) {
  std::string json = JsonText([&](JsonWriter& w) {
    JsonWriter::Scope filter = w.Array();
    JsonWriter::Scope predicate = w.Object();
    w.Key("In");
    JsonWriter::Scope args = w.Array();
    w.String(parent_field);
    JsonWriter::Scope values = w.Array();
    for (std::string_view parent : parents) {
      JsonWriter::Scope value = w.Object();
      w.Member("Str", parent);
    }
  });
  return Filter::CompileText(json, "expand.parent_field");
}

// The neighbours of the other documents: one scan of the collection for the rows whose parent is
// one of theirs, narrowed by its columns and filter indexes where it has them.
void ReadByParent(const QueryContext& ctx, const CollectionState& c, const ExpandParams& p, Documents& docs) {
  std::vector<std::string_view> parents;
  for (const auto& [parent, doc] : docs)
    if (!doc.chunk_ids) parents.push_back(parent);
  if (parents.empty()) return;
  for (const MatchedRow& m : MatchRows(ctx.snap, {&c}, ParentsFilter(p.parent_field, parents), ctx.pool, ctx.cancel)) {
    std::string_view parent;
    Chunk chunk;
    if (!ReadChunk(*m.segment, m.row, p, &parent, &chunk)) continue;
    auto it = docs.find(parent);
    if (it != docs.end() && !it->second.chunk_ids && it->second.wanted.count(chunk.text.index)) it->second.Offer(chunk);
  }
}

// A hit's context: its own chunk and the chunks found within radius of it.
std::string ContextOf(const Document& doc, const ChunkText& own, uint32_t radius) {
  auto [lo, hi] = Window(own.index, radius);
  std::vector<ChunkText> window;
  for (auto it = doc.chunks.lower_bound(lo); it != doc.chunks.end() && it->first <= hi; ++it)
    window.push_back(it->first == own.index ? own : it->second.text);
  return StitchChunks(window);
}

}  // namespace

std::string StitchChunks(const std::vector<ChunkText>& chunks) {
  std::string out;
  const ChunkText* prev = nullptr;
  std::optional<SourceSpan> prev_span;
  int64_t end = 0;  // with prev_span: where the source text stitched since the last blank line ends
  for (const ChunkText& c : chunks) {
    std::optional<SourceSpan> span = SpanOf(c);
    bool continues = prev && prev->index + 1 == c.index && prev_span && span && span->begin >= prev_span->begin && span->begin <= end;
    if (continues) {
      out += DropCodePoints(c.text, end - span->begin);
      end = std::max(end, span->end);
    } else {
      if (prev) out += "\n\n";
      out += c.text;
      if (span) end = span->end;
    }
    prev = &c;
    prev_span = span;
  }
  return out;
}

std::vector<std::optional<std::string>> ExpandPage(const QueryContext& ctx, const std::optional<ExpandParams>& expand,
                                                   const std::vector<Candidate>& ranked, size_t offset, size_t limit,
                                                   const std::vector<std::string_view>& collection_names) {
  if (!expand) return {};
  const ExpandParams& p = *expand;
  size_t begin = std::min(offset, ranked.size());
  size_t size = std::min(ranked.size() - begin, limit);
  // Hits grouped by collection and parent, so a document's chunks are read once for all its hits.
  std::map<uint32_t, Documents> documents;
  std::vector<Chunk> own(size);
  std::vector<const Document*> doc_of(size, nullptr);  // null: not a chunk
  for (size_t i = 0; i < size; ++i) {
    const Candidate& c = ranked[begin + i];
    std::string_view parent;
    if (!ReadChunk(*c.segment, c.row, p, &parent, &own[i])) continue;
    Document& doc = documents[c.collection][parent];
    doc.chunk_ids = doc.chunk_ids && c.id() == ChunkId(parent, own[i].text.index);
    doc.Offer(own[i]);
    auto [lo, hi] = Window(own[i].text.index, p.radius);
    for (int64_t index = lo;; ++index) {
      doc.wanted.insert(index);
      if (index == hi) break;  // hi may be INT64_MAX
    }
    doc_of[i] = &doc;
  }
  if (p.radius > 0) {
    for (auto& [collection, docs] : documents) {
      auto it = ctx.snap.collections.find(std::string(collection_names[collection]));
      if (it == ctx.snap.collections.end()) continue;
      ReadById(ctx, *it->second, p, docs);
      ReadByParent(ctx, *it->second, p, docs);
    }
  }
  std::vector<std::optional<std::string>> contexts(size);
  for (size_t i = 0; i < size; ++i)
    if (doc_of[i]) contexts[i] = ContextOf(*doc_of[i], own[i].text, p.radius);
  return contexts;
}

}  // namespace tessera
