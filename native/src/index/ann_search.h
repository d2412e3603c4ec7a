// What the approximate indexes (HNSW, IVF) share around their own search: the admission that
// decides, and counts in the query plan, which surfaced rows may be returned, and the prefilter
// policy that answers by the exact scan instead when a filter is selective enough to make the
// index search dearer than the scan, or when the search starved.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "index/vector_index.h"
#include "index/vector_space.h"

namespace tessera {

// Lets into an approximate search's results the rows the query may return, counting what it
// turns away.
class CandidateAdmission {
 public:
  // budget: how many rows the search may surface before it is not worth finishing.
  CandidateAdmission(const RowRange& rows, const RowFilter& admit, SearchTrace& trace, uint64_t budget)
      : rows_(rows), admit_(admit), trace_(trace), budget_(budget) {}

  // min_score is not checked here but on the search's results: it orders like the distance, so
  // the nearest rows hold every row above it, and a floor inside a walk would keep it from ending.
  bool Admit(uint32_t row);
  // The search surfaced more rows than its budget: the caller scans instead.
  bool over_budget() const { return surfaced_ > budget_; }

 private:
  const RowRange& rows_;
  const RowFilter& admit_;
  SearchTrace& trace_;
  const uint64_t budget_;
  uint64_t surfaced_ = 0;
};

// What an approximate search found: the rows it admitted (distance = -score), and whether it
// surfaced every row it indexes, so that no row it missed can match.
struct AnnFound {
  std::vector<Neighbor> admitted;
  bool exhausted = false;
  // Distances estimated from quantized codes: the `rescore` nearest admitted rows are rescored
  // exactly and only those reach the window. 0: the distances are exact.
  size_t rescore = 0;
  // The search stopped at its budget: what it found may not be the nearest.
  bool abandoned = false;
  // With rescore: whether the estimates are close enough to leave rows unread (RescoreBest's prune).
  bool prune = false;
};

// Answers a query through search, or through the exact scan (counted as a fallback) when the
// query's filter passes so few rows that scanning costs fewer distances than searching, or when
// search found fewer rows than the window needs without exhausting the index: a starved search
// cannot promise every row that qualifies, the scan can. search_distances is what search computes
// with no filter; a filter passing a fraction f of the rows at random makes it about
// search_distances / f, since the search must surface 1/f times the candidates to admit as many.
// A filter that passes rows far from the query (another class than the query's) costs a walk far
// more: a filtered search is abandoned for the scan once it has surfaced half as many rows as pass
// the filter (each costs it about twice what a passing row costs the scan, which narrows by the
// columns first and scores only those), so it never costs much more than twice the scan.
void SearchOrScan(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
                  const CancelToken& cancel, SearchTrace& trace, double search_distances,
                  const std::function<AnnFound(CandidateAdmission& admission)>& search);

}  // namespace tessera
