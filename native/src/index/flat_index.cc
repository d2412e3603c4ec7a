#include "index/flat_index.h"

#include <algorithm>
#include <bit>

#include "tessera/kernels.h"
#include "util/clock.h"
#include "util/row_bits.h"

namespace tessera {
namespace {

constexpr uint32_t kBlock = 64;
// Rows narrowed by the segment's columns at a time (multiples of kBlock): a first small chunk
// tells whether narrowing pays, at little cost when it does not.
constexpr uint32_t kFirstNarrowChunk = 1024;
constexpr uint32_t kNarrowChunk = 4096;

// Whether narrowing a scan's chunks pays: it goes on while the time spent narrowing stays below
// what the rows it spared would have cost at the scan's measured time per scored row (the
// filter's tests of rows the window wanted included). Counted in rows, not blocks: a block the
// narrowing left few rows of scores only those.
class NarrowingPays {
 public:
  void Narrowed(uint64_t ns, uint64_t rows_spared) {
    narrow_ns_ += ns;
    spared_ += rows_spared;
  }
  void Scored(uint64_t ns, uint64_t rows) {
    score_ns_ += ns;
    scored_ += rows;
  }
  bool operator()() const { return scored_ == 0 || narrow_ns_ * scored_ < spared_ * score_ns_; }

 private:
  uint64_t narrow_ns_ = 0, spared_ = 0, score_ns_ = 0, scored_ = 0;
};

// Scores the main vector of rows [begin, end) a block at a time with the multi-row kernel, run by
// run of visible rows with a vector: superseded and deleted rows (until compaction reclaims them)
// cost a visibility check, not a distance. With a filter the segment's columns can narrow, each
// chunk of rows is narrowed first and blocks with no row left are never scored, for as long as
// that pays; unnarrowed rows are filtered only where the window wants their score. Blocks and runs
// are cut where they would be unnarrowed, so every row gets the same score either way.
void ScanBlocks(const Segment& seg, const VectorQuery& q, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                const CancelToken& cancel) {
  const Kernels& k = ActiveKernels();
  const auto kernel = q.euclidean ? k.l2sq_rows : k.dot_rows;
  const auto kernel_at = q.euclidean ? k.l2sq_rows_at : k.dot_rows_at;
  float scores[kBlock], gathered[kBlock];
  const float* at[kBlock];
  uint32_t slot[kBlock];
  bool scored[kBlock];
  RowBits chunk;
  bool narrowing = admit.filtered();
  NarrowingPays pays;
  for (uint32_t c = rows.begin, size = kFirstNarrowChunk; c < rows.end; c += size, size = kNarrowChunk) {
    const uint32_t chunk_end = std::min(rows.end, c + size);
    Narrowed narrowed = Narrowed::kNone;
    uint64_t narrow_start = 0, score_start = 0;
    if (narrowing) {
      narrow_start = NowNanos();
      chunk.Reset(c, chunk_end);
      narrowed = admit.Narrow(chunk);
      narrowing = narrowed != Narrowed::kNone;
      score_start = NowNanos();
    }
    uint64_t rows_scored = 0;
    for (uint32_t b = c; b < chunk_end; b += kBlock) {
      if ((b - rows.begin) % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      uint32_t n = std::min(kBlock, rows.end - b);
      uint64_t keep = narrowed == Narrowed::kNone ? ~uint64_t(0) : chunk.Word((b - c) / kBlock);
      if (keep == 0) continue;
      if (n < kBlock) keep &= (uint64_t(1) << n) - 1;
      // A block with no deleted or vectorless row (the common case) is one kernel call, its rows not
      // tested one by one. One the narrowing left at most half of scores only its kept rows: a
      // filter spread over the segment leaves a few rows in most blocks (at 10% of rows passing,
      // whole blocks scored all of them). The rows kernels score rows four at a time from the first
      // of a call and the rest one by one (kernels/four_rows.h); the kept rows among the block's
      // whole fours are scored in fours wherever they lie (rows_at, padded with the last one), its
      // last few in a call of their own, so each scores exactly as the whole block's call would
      // score it: a row's score never depends on the narrowing.
      const bool whole = admit.AllVisible() && seg.all_have_vectors(b, n);
      const bool sparse = whole && narrowed != Narrowed::kNone && uint32_t(std::popcount(keep)) * 2 <= n;
      if (sparse) {
        const uint32_t fours = n & ~3u;
        size_t m = 0;
        for (uint64_t left = fours == kBlock ? keep : keep & ((uint64_t(1) << fours) - 1); left != 0; left &= left - 1) {
          slot[m] = uint32_t(std::countr_zero(left));
          at[m] = seg.vector(b + slot[m]);
          ++m;
        }
        if (m > 0) {
          const size_t padded = (m + 3) & ~size_t(3);
          for (size_t j = m; j < padded; ++j) at[j] = at[m - 1];
          kernel_at(q.vector, at, q.dim, padded, gathered);
          for (size_t j = 0; j < m; ++j) scores[slot[j]] = gathered[j];
          rows_scored += padded;
        }
        if (fours < n && (keep >> fours) != 0) {
          kernel(q.vector, seg.vector(b + fours), q.dim, n - fours, scores + fours);
          rows_scored += n - fours;
        }
      } else if (whole) {
        kernel(q.vector, seg.vector(b), q.dim, n, scores);
        rows_scored += n;
      } else {
        for (uint32_t i = 0; i < n; ++i) scored[i] = admit.Visible(b + i) && seg.has_vector(b + i);
        for (uint32_t i = 0; i < n;) {
          if (!scored[i]) {
            ++i;
            continue;
          }
          uint32_t end = i + 1;
          while (end < n && scored[end]) ++end;
          kernel(q.vector, seg.vector(b + i), q.dim, end - i, scores + i);
          rows_scored += end - i;
          i = end;
        }
      }
      for (; keep != 0; keep &= keep - 1) {
        uint32_t i = uint32_t(std::countr_zero(keep)), r = b + i;
        if (!whole && !scored[i]) continue;
        float score = q.euclidean ? -scores[i] : scores[i];
        if (!sink.Wants(score)) continue;
        if (narrowed == Narrowed::kExact ? !admit.Excluded(r) : admit.Admits(r)) sink.Offer(r, score);
      }
    }
    if (narrowing) {
      pays.Narrowed(score_start - narrow_start, (chunk_end - c) - rows_scored);
      pays.Scored(NowNanos() - score_start, rows_scored);
      narrowing = pays();
    }
  }
}

}  // namespace

VectorIndexPtr FlatIndex::Shared() {
  static const VectorIndexPtr flat = std::make_shared<FlatIndex>();
  return flat;
}

uint64_t FlatIndex::BytesRead(const Segment& seg, uint32_t rows, const VectorQuery&) const {
  return uint64_t(rows) * seg.dim() * sizeof(float);
}

void FlatIndex::Search(const Segment& seg, const VectorQuery& q, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                       const CancelToken& cancel, SearchTrace& trace) const {
  trace.rows_scanned += rows.size();
  if (q.names.empty() && rows.narrowed == nullptr) {
    ScanBlocks(seg, q, rows, admit, sink, cancel);
    return seg.ReleaseMappedRows(rows.begin, rows.end);
  }
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
