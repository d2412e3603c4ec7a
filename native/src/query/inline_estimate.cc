#include "query/inline_estimate.h"

#include <algorithm>

#include "query/scan.h"
#include "tessera/prepared_read.h"

namespace tessera {

namespace {

// More segments than this mean a store too big to scan inline anyway; stop counting.
constexpr size_t kMaxSegmentsCounted = 64;

// An expand with a radius reads records beyond the hits (a scan of a collection, when its chunks
// lack the store's ids) and writes up to 2 x radius + 1 chunks per hit; radius 0 writes each
// hit's own text once more, within the bound on what writing the hits costs.
bool WidensChunks(const SearchParams& p) { return p.expand && p.expand->radius > 0; }

}  // namespace

bool SearchRunsInline(const Snapshot& snap, const SearchParams& p, const SegmentQuery& query, InlineBound bound) {
  // Each of these can cost more than the bytes scanned: a filter's regex or fuzzy predicates,
  // diversity's pairwise distances, limit_per's deeper window, one scan per named vector, the
  // chunks an expand with a radius writes for each hit.
  if (!p.filter.empty() || !p.names.empty() || p.diversity || p.limit_per || WidensChunks(p)) return false;
  if (uint64_t(p.offset) + p.top_k > kInlineMaxWindow) return false;
  uint64_t limit = bound == InlineBound::kSync ? kSyncMaxBytes : kInlineMaxBytes, bytes = 0, largest_record = 0;
  size_t segments = 0;
  for (const CollectionState* c : ResolveScope(snap, p.scope)) {
    for (const SegmentRef& ref : c->segments) {
      if (++segments > kMaxSegmentsCounted) return false;
      bytes += ScanTask::IndexOf(ref, ScanTask::MethodOf(ref, query.approximate)).BytesRead(*ref.segment, ref.rows, query.query);
      largest_record = std::max(largest_record, ref.segment->max_record_bytes());
      if (bytes > limit) return false;
    }
  }
  // Writing the window reads each hit's record.
  return bytes + largest_record * query.query.window <= limit;
}

bool TextSearchMayRunInline(const Snapshot& snap, const TextSearchParams& params) {
  const SearchParams& p = params.search;
  if (!p.filter.empty() || p.rank_by || p.limit_per || p.diversity || params.text.highlight || WidensChunks(p)) return false;
  if (uint64_t(p.offset) + p.top_k > kInlineMaxWindow) return false;
  uint64_t words = 0;
  for (const TextClause& clause : params.text.clauses) {
    if (clause.prefix) return false;
    words += 1 + uint64_t(std::count(clause.query.begin(), clause.query.end(), ' '));
  }
  uint64_t chunks = 0;
  size_t segments = 0;
  for (const CollectionState* c : ResolveScope(snap, p.scope)) {
    for (const SegmentRef& ref : c->segments) {
      if (++segments > kMaxSegmentsCounted) return false;
      if (const SegmentTextPtr& text = ref.indexes->text()) chunks += text->chunks().size();
    }
  }
  return chunks * words <= kInlineMaxLookups;
}

bool TextSearchRunsInline(const PreparedTextSearch& search, InlineBound bound) {
  if (search.text.postings > (bound == InlineBound::kSync ? kSyncMaxPostings : kInlineMaxPostings)) return false;
  uint64_t largest = 0;
  for (const CollectionState* c : search.text.scope)
    for (const SegmentRef& ref : c->segments) largest = std::max(largest, ref.segment->max_record_bytes());
  return largest * kInlineMaxWindow <= kInlineMaxBytes;
}

}  // namespace tessera
