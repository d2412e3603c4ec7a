#include "index/quantized_scan.h"

#include <algorithm>
#include <queue>

#include "index/rescore.h"
#include "util/clock.h"

namespace tessera {

uint64_t QuantizedScan::BytesRead(const Segment&, uint32_t, const VectorQuery& query) const {
  return codes_->bytes() + RescoreBytes(query);
}

void QuantizedScan::Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                           const CancelToken& cancel, SearchTrace& trace) const {
  uint64_t start = NowNanos();
  QuantizedQuery prepared = codes_->Prepare(query.vector);
  size_t keep = size_t(query.window) * query.rescore;
  auto farther = [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance; };
  std::priority_queue<Neighbor, std::vector<Neighbor>, decltype(farther)> best(farther);
  auto consider = [&](uint32_t row, float distance) {
    if (!admit.Visible(row) || !segment.has_vector(row)) return;
    if (best.size() >= keep && distance >= best.top().distance) return;
    if (!admit.Admits(row)) return;
    best.push({distance, row});
    if (best.size() > keep) best.pop();
  };
  constexpr uint32_t kBlock = 64;
  float distances[kBlock];
  if (rows.narrowed == nullptr) {
    for (uint32_t b = rows.begin; b < rows.end; b += kBlock) {
      if ((b - rows.begin) % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      uint32_t n = std::min(kBlock, rows.end - b);
      codes_->DistancesOfRange(prepared, b, n, distances);
      for (uint32_t i = 0; i < n; ++i) consider(b + i, distances[i]);
    }
  } else {
    uint32_t batch[kBlock], n = 0;
    auto flush = [&] {
      codes_->Distances(prepared, batch, n, distances);
      for (uint32_t i = 0; i < n; ++i) consider(batch[i], distances[i]);
      n = 0;
    };
    ForEachRow(rows, cancel, [&](uint32_t r) {
      batch[n++] = r;
      if (n == kBlock) flush();
    });
    flush();
  }
  trace.rows_scanned += rows.size();
  ++trace.quantized_passes;
  std::vector<Neighbor> candidates;
  candidates.reserve(best.size());
  for (; !best.empty(); best.pop()) candidates.push_back(best.top());
  trace.first_pass_ns += NowNanos() - start;
  RescoreBest(segment, query, candidates, keep, sink, trace, codes_->kind() == QuantizationKind::kInt8);
}

void QuantizedSpace::DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const {
  if (codes_.kind() == QuantizationKind::kInt8) return codes_.DistancesFromRow(from, rows, n, out);
  rows_.DistancesFromRow(from, rows, n, out);
}

// Distinct from the f32 spaces (1, 2) so a graph built over codes is never mistaken for one built
// over the rows.
uint32_t QuantizedSpace::kind() const { return 16 + uint32_t(codes_.kind()) * 2 + (euclidean_ ? 1 : 0); }

}  // namespace tessera
