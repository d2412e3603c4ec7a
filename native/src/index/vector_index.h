// Vector search over one segment, behind one interface: the flat scan today, HNSW and IVF beside
// it. An index offers scored rows and leaves two decisions to its caller, the way hnswlib passes a
// filter functor: whether a row may be returned at all (RowFilter: visibility, the query's filter,
// the excluded record) and what becomes of an admitted score (ScoreSink: the query's window).
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter/filter.h"
#include "index/row_range.h"
#include "index/segment_filter.h"
#include "storage/segment.h"
#include "tessera/cancel.h"
#include "tessera/kernels.h"

namespace tessera {

// What a query scores a row by.
struct VectorQuery {
  const float* vector = nullptr;  // normalized for Cosine
  uint32_t dim = 0;
  bool euclidean = false;  // score = -(squared L2 distance); otherwise the dot product
  // Named-vector scoring, each name with its weight ("default" is the record's main vector); a
  // row is scored on the names it carries. Empty: the main vector alone.
  std::vector<std::pair<std::string, float>> names;
  bool sum_pool = false;  // fold the names' scores by Sum, else by Max
  // For approximate indexes: rows the query's window needs (offset + top_k, widened for
  // limit_per and diversity), the walk's candidate list (ef) and the min_score floor.
  uint32_t window = 10;
  uint32_t ef = 64;
  float min_score = -INFINITY;  // at float precision, as scores are
  // With quantized codes: the best window x rescore candidates by estimate are rescored exactly.
  uint32_t rescore = 4;
};

// The exact score of a stored vector: the dot product, or -(squared L2) for Euclidean.
inline float ExactScore(const Kernels& k, const VectorQuery& q, const float* v) {
  return q.euclidean ? -k.l2sq(q.vector, v, q.dim) : k.dot(q.vector, v, q.dim);
}

// What happened in one segment task, for the query plan (summed over a query's tasks).
struct SearchTrace {
  uint64_t rows_scanned = 0;  // rows an exact scan visited
  uint32_t walks = 0;         // index walks that answered
  uint32_t fallbacks = 0;     // walks skipped or starved by a selective filter, scanned exactly instead
  // Rows a walk surfaced as candidates, and what became of them.
  uint64_t surfaced = 0, survived = 0, dropped_out_of_scope = 0, dropped_stale = 0, dropped_filtered = 0, dropped_min_score = 0;
  uint64_t walk_ns = 0, scan_ns = 0, first_pass_ns = 0, rescore_ns = 0;
  uint32_t quantized_passes = 0;  // segments ranked by codes first
  uint64_t rescored = 0;          // rows a quantized pass or walk read in f32 to rescore

  void Add(const SearchTrace& o) {
    rows_scanned += o.rows_scanned;
    walks += o.walks;
    fallbacks += o.fallbacks;
    surfaced += o.surfaced;
    survived += o.survived;
    dropped_out_of_scope += o.dropped_out_of_scope;
    dropped_stale += o.dropped_stale;
    dropped_filtered += o.dropped_filtered;
    dropped_min_score += o.dropped_min_score;
    walk_ns += o.walk_ns;
    scan_ns += o.scan_ns;
    first_pass_ns += o.first_pass_ns;
    rescore_ns += o.rescore_ns;
    quantized_passes += o.quantized_passes;
    rescored += o.rescored;
  }
};

// Whether a row may be returned: visible at the snapshot's version, passing the query's filter,
// and not the excluded record (/search/similar's source).
class RowFilter {
 public:
  // deleted_rows: how many rows of segment the snapshot sees deleted (its SegmentRef's); with none,
  // no row needs its deletion stamp read.
  RowFilter(const Segment& segment, uint64_t version, uint32_t deleted_rows, const Filter& filter,
            std::optional<std::string_view> excluded_id)
      : segment_(segment), version_(version), filter_(filter, segment), excluded_id_(excluded_id), all_visible_(deleted_rows == 0) {}

  // Cheap, checked before a row is scored.
  bool Visible(uint32_t row) const { return all_visible_ || segment_.visible(row, version_); }
  // Whether every row the snapshot sees is visible, so a scan need not ask row by row.
  bool AllVisible() const { return all_visible_; }
  // Reads the row's attributes, so it is asked only of scores the sink wants.
  bool Admits(uint32_t row) const { return Passes(row) && !Excluded(row); }
  bool Passes(uint32_t row) const { return filter_.Matches(row); }
  bool Excluded(uint32_t row) const { return excluded_id_ && segment_.row_id(row) == *excluded_id_; }
  bool filtered() const { return !filter_.empty(); }
  // Clears from rows those the filter cannot pass, reading the segment's columns (SegmentFilter).
  Narrowed Narrow(RowBits& rows) const { return filter_.Narrow(rows); }

 private:
  const Segment& segment_;
  uint64_t version_;
  SegmentFilter filter_;
  std::optional<std::string_view> excluded_id_;
  bool all_visible_;
};

// Where admitted scores go. Wants() is inline because a scan asks it of every row: a score under
// the sink's floor, or under the floor all sinks of one query share, can never enter the result.
class ScoreSink {
 public:
  explicit ScoreSink(std::atomic<float>* shared_floor) : shared_floor_(shared_floor) {}
  virtual ~ScoreSink() = default;

  bool Wants(float score) const { return score >= floor_ && score >= shared_floor_->load(std::memory_order_relaxed); }
  virtual void Offer(uint32_t row, float score) = 0;

 protected:
  // Every later score must reach floor; also raises the shared floor when floor is above it.
  void RaiseFloor(float floor) {
    floor_ = floor;
    for (float seen = shared_floor_->load(std::memory_order_relaxed);
         floor > seen && !shared_floor_->compare_exchange_weak(seen, floor, std::memory_order_relaxed);) {
    }
  }

 private:
  float floor_ = -INFINITY;
  std::atomic<float>* shared_floor_;
};

class VectorIndex {
 public:
  virtual ~VectorIndex() = default;
  // Offers sink the rows of `rows` that admit lets through and that carry a vector the query
  // scores, each with its score (higher is better); an approximate index offers the best it finds.
  virtual void Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                      const CancelToken& cancel, SearchTrace& trace) const = 0;
  // About how many bytes of vectors and codes Search reads to answer query over the first rows of
  // segment, unfiltered: the estimate that decides whether a read may run on its caller's thread
  // (query/inline_estimate.h).
  virtual uint64_t BytesRead(const Segment& segment, uint32_t rows, const VectorQuery& query) const = 0;
  // The bytes of the structure itself (a graph, lists, codes; not the f32 rows it scores): what
  // /stats reports per structure.
  virtual size_t bytes() const = 0;
};

using VectorIndexPtr = std::shared_ptr<const VectorIndex>;

// An index over rows [first_row, first_row + its rows) of a segment being indexed, which are its
// own segment's rows in order (a merge's input that kept every row): a build may start from it.
struct IndexPart {
  const VectorIndex* index = nullptr;
  uint32_t first_row = 0;
};

// An index's candidate with its final score: counted as dropped under min_score or as survived,
// and offered to sink when its window wants it.
inline void OfferScore(const VectorQuery& query, uint32_t row, float score, ScoreSink& sink, SearchTrace& trace) {
  if (score < query.min_score) {
    ++trace.dropped_min_score;
    return;
  }
  ++trace.survived;
  if (sink.Wants(score)) sink.Offer(row, score);
}

// The f32 rows a quantized pass rescores exactly, in bytes.
inline uint64_t RescoreBytes(const VectorQuery& query) { return uint64_t(query.window) * query.rescore * query.dim * sizeof(float); }

// Sealed segments with fewer rows are scanned exactly: scanning them costs less than a walk.
constexpr uint32_t kMinAnnRows = 1024;

}  // namespace tessera
