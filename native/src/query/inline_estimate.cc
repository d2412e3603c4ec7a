#include "query/inline_estimate.h"

#include "tessera/prepared_read.h"

namespace tessera {

namespace {

// More segments than this mean a store too big to scan inline anyway; stop counting.
constexpr size_t kMaxSegmentsCounted = 64;

}  // namespace

bool SearchRunsInline(const Snapshot& snap, const SearchParams& p) {
  // Each of these can cost more than the bytes scanned: a filter's regex or fuzzy predicates,
  // diversity's pairwise distances, limit_per's deeper window, one scan per named vector.
  if (!p.filter.empty() || !p.names.empty() || p.diversity || p.limit_per) return false;
  if (uint64_t(p.offset) + p.top_k > kInlineMaxWindow) return false;
  uint64_t bytes = 0;
  size_t segments = 0;
  for (const auto& [name, c] : snap.collections) {
    for (const SegmentRef& ref : c->segments) {
      if (++segments > kMaxSegmentsCounted) return false;
      bytes += uint64_t(ref.rows) * ref.segment->dim() * sizeof(float) + ref.segment->record_bytes();
      if (bytes > kInlineMaxBytes) return false;
    }
  }
  return true;
}

}  // namespace tessera
