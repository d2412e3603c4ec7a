#include "index/flat_index.h"

#include <algorithm>

#include "tessera/kernels.h"

namespace tessera {
namespace {

// Scores the main vector of rows [begin, end) a block at a time with the multi-row kernel, run by
// run of visible rows with a vector: superseded and deleted rows (until compaction reclaims them)
// cost a visibility check, not a distance.
void ScanBlocks(const Segment& seg, const VectorQuery& q, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                const CancelToken& cancel) {
  constexpr uint32_t kBlock = 64;
  const Kernels& k = ActiveKernels();
  const auto kernel = q.euclidean ? k.l2sq_rows : k.dot_rows;
  float scores[kBlock];
  bool scored[kBlock];
  for (uint32_t b = rows.begin; b < rows.end; b += kBlock) {
    if ((b - rows.begin) % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
    uint32_t n = std::min(kBlock, rows.end - b);
    for (uint32_t i = 0; i < n; ++i) scored[i] = admit.Visible(b + i) && seg.has_vector(b + i);
    for (uint32_t i = 0; i < n;) {
      if (!scored[i]) {
        ++i;
        continue;
      }
      uint32_t end = i + 1;
      while (end < n && scored[end]) ++end;
      kernel(q.vector, seg.vector(b + i), q.dim, end - i, scores + i);
      i = end;
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (!scored[i]) continue;
      float score = q.euclidean ? -scores[i] : scores[i];
      if (sink.Wants(score) && admit.Admits(b + i)) sink.Offer(b + i, score);
    }
  }
}

}  // namespace

VectorIndexPtr FlatIndex::Shared() {
  static const VectorIndexPtr flat = std::make_shared<FlatIndex>();
  return flat;
}

void FlatIndex::Search(const Segment& seg, const VectorQuery& q, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                       const CancelToken& cancel, SearchTrace& trace) const {
  trace.rows_scanned += rows.size();
  if (q.names.empty() && rows.narrowed == nullptr) return ScanBlocks(seg, q, rows, admit, sink, cancel);
  const Kernels& k = ActiveKernels();
  auto distance = [&](const float* v) { return ExactScore(k, q, v); };
  std::vector<const NamedColumn*> columns;
  for (const auto& [name, weight] : q.names) columns.push_back(name == "default" ? nullptr : seg.named(name));
  auto offer = [&](uint32_t r, float score) {
    if (sink.Wants(score) && admit.Admits(r)) sink.Offer(r, score);
  };
  ForEachRow(rows, cancel, [&](uint32_t r) {
    if (!admit.Visible(r)) return;
    if (q.names.empty()) {
      if (seg.has_vector(r)) offer(r, distance(seg.vector(r)));
      return;
    }
    // A record is scored on the names it carries and not penalized for the others.
    bool any = false;
    float folded = 0;
    for (size_t i = 0; i < q.names.size(); ++i) {
      const float* v = nullptr;
      if (q.names[i].first == "default")
        v = seg.has_vector(r) ? seg.vector(r) : nullptr;
      else if (columns[i] && columns[i]->has(r))
        v = columns[i]->row(r, q.dim);
      if (v == nullptr) continue;
      float s = distance(v) * q.names[i].second;
      folded = !any ? s : q.sum_pool ? folded + s : std::max(folded, s);
      any = true;
    }
    if (any) offer(r, folded);
  });
}

}  // namespace tessera
