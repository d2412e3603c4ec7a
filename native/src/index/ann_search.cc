#include "index/ann_search.h"

#include <algorithm>

#include "index/flat_index.h"
#include "index/rescore.h"
#include "util/clock.h"

namespace tessera {
namespace {

bool Drop(uint64_t& counter) {
  ++counter;
  return false;
}

// A filtered walk is abandoned once it has surfaced this many rows per row the filter passes: a
// surfaced row costs a walk about twice what a passing row costs the scan (its distance on codes
// is cheaper, but reached through the graph's links, the visited set and the queues; 784-d
// Fashion-MNIST: ~0.4 us against ~0.25 us), so what an abandoned walk wasted is about one scan.
constexpr double kWalkShareOfScan = 0.5;

// About how many of rows pass admit's filter.
double MatchingRows(const Segment& segment, const RowRange& rows, const RowFilter& admit) {
  if (rows.narrowed != nullptr) return double(rows.size());
  // One row from each of kSample equal strides, at a hashed offset within its stride, so an
  // attribute that repeats with the row number (i % 10) cannot line up with the sample.
  constexpr uint32_t kSample = 256;
  uint32_t rows_total = segment.appended(), strides = std::max(1u, std::min(kSample, rows_total)), passed = 0;
  for (uint32_t k = 0; k < strides && rows_total > 0; ++k) {
    uint64_t begin = uint64_t(k) * rows_total / strides, end = uint64_t(k + 1) * rows_total / strides;
    uint64_t jitter = (uint64_t(k) * 0x9E3779B97F4A7C15ull) >> 40;
    passed += admit.Passes(uint32_t(begin + jitter % (end - begin)));
  }
  return double(std::max<uint32_t>(1, rows_total)) * passed / strides;
}

// Whether an exact scan of rows costs less than a search that admits only the matching rows.
bool ScanIsCheaper(const Segment& segment, const RowRange& rows, double matching, double search_distances) {
  if (matching < 1) return true;
  double total = std::max<uint32_t>(1, segment.appended());
  double search = search_distances * total / matching;
  double scan = rows.narrowed != nullptr ? matching : total;
  return scan <= search;
}

}  // namespace

bool CandidateAdmission::Admit(uint32_t row) {
  ++trace_.surfaced;
  ++surfaced_;
  if (!admit_.Visible(row)) return Drop(trace_.dropped_stale);
  if (!rows_.Contains(row) || !admit_.Passes(row)) return Drop(trace_.dropped_filtered);
  if (admit_.Excluded(row)) return Drop(trace_.dropped_out_of_scope);
  return true;
}

void SearchOrScan(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                  const CancelToken& cancel, SearchTrace& trace, double search_distances,
                  const std::function<AnnFound(CandidateAdmission& admission)>& search) {
  uint64_t start = NowNanos();
  auto scan_exactly = [&] {
    ++trace.fallbacks;
    FlatIndex::Shared()->Search(segment, query, rows, admit, sink, cancel, trace);
    trace.scan_ns += NowNanos() - start;
  };
  uint64_t budget = UINT64_MAX;
  if (admit.filtered() || rows.narrowed != nullptr) {
    double matching = MatchingRows(segment, rows, admit);
    if (ScanIsCheaper(segment, rows, matching, search_distances)) return scan_exactly();
    budget = uint64_t(std::max(matching * kWalkShareOfScan, search_distances));
  }
  CandidateAdmission admission(rows, admit, trace, budget);
  AnnFound found = search(admission);
  trace.walk_ns += NowNanos() - start;
  if (found.abandoned || (found.admitted.size() < query.window && !found.exhausted)) {
    start = NowNanos();
    return scan_exactly();
  }
  ++trace.walks;
  if (found.rescore > 0) return RescoreBest(segment, query, found.admitted, found.rescore, sink, trace, found.prune);
  for (const Neighbor& n : found.admitted) OfferScore(query, n.row, -n.distance, sink, trace);
}

}  // namespace tessera
