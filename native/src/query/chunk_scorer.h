// BM25 scoring of one segment's postings, chunk by chunk, for a prepared query. With Sum and
// nothing but the score deciding rank, it prunes: posting blocks whose bound cannot bring a
// document into the window are skipped (block-max), and once no unseen document can reach the
// window only documents already seen are read on. docs/full-text.md describes the algorithm.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <vector>

#include "query/text_prepare.h"

namespace tessera {

// One query term's posting list in one chunk, with a bound on its BM25 contribution.
struct TermPostings {
  size_t clause;
  const FieldPostings* fp;
  size_t term;  // index in fp's dictionary
  uint32_t first, last;
  double idf;
  double bound;
};

// Per-thread accumulators per (slot, row) and per-row flags, kept zeroed between chunks by
// resetting only the entries a chunk touched, so a query pays for the postings it reads rather
// than for the size of the segments. A task that stopped midway (cancelled) leaves it dirty.
struct ScoreScratch {
  std::vector<double> acc;
  std::vector<uint8_t> seen;
  std::vector<uint32_t> touched;
  bool dirty = false;

  static ScoreScratch& ForThisThread(size_t accumulators, size_t rows);
};

// Scores the chunks of one segment for one prepared query. Sum keeps one accumulator per row;
// Max keeps one per clause and row, since its combination needs each clause's own score.
class ChunkScorer {
 public:
  // Max over many clauses needs clauses x rows accumulators; a thread keeps no more than this
  // (8 MiB of doubles).
  static constexpr size_t kKeptAccumulators = size_t(1) << 20;

  ChunkScorer(const PreparedCollection& pc, const TextQuery& q, const SegmentRef& ref, bool prunable)
      : pc_(pc),
        ref_(ref),
        slots_(q.combine == Combine::kMax ? pc.clauses.size() : 1),
        prunable_(prunable),
        scratch_(ScoreScratch::ForThisThread(slots_ * size_t(ref.rows), ref.rows)) {}
  ~ChunkScorer() {
    scratch_.dirty = std::uncaught_exceptions() > 0;
    if (scratch_.acc.size() > kKeptAccumulators) scratch_ = ScoreScratch();
  }

  // Accumulates the chunk's matching live rows; then fn(row, combined score) for each (in no
  // particular order: candidates rank by score, collection and id alone).
  // floor: a score the window's last candidate already beats or ties (-inf when unknown).
  template <typename Fn>
  void Score(const TextChunk& chunk, size_t window, float floor, Fn&& fn) {
    begin_ = chunk.begin();
    rows_ = chunk.end() - begin_;
    window_ = window;
    floor_ = floor;
    scratch_.touched.clear();
    std::vector<TermPostings> lists = Lists(chunk);
    double rest = 0;  // bound on what the lists not yet read can add to any document
    for (const TermPostings& l : lists) rest += l.bound;
    bool admitting = true;
    for (const TermPostings& l : lists) {
      // Once the window-th best partial sum beats everything the remaining lists could give a
      // document not yet seen, no unseen document can reach the window: read only the seen ones.
      // Compared as the float scores candidates carry, strictly: an unseen document tying the
      // threshold could still win on (collection, id).
      if (admitting && prunable_ && scratch_.touched.size() >= window && Below(rest, std::max(floor, float(KthBest(window))))) {
        admitting = false;
        std::sort(scratch_.touched.begin(), scratch_.touched.end());
      }
      if (admitting)
        Admit(l, rest - l.bound);
      else
        Update(l);
      rest -= l.bound;
    }
    for (uint32_t local : scratch_.touched) {
      double combined = 0;
      for (size_t slot = 0; slot < slots_; ++slot) {
        double& s = scratch_.acc[slot * rows_ + local];
        combined = std::max(combined, s);  // one slot: its sum; one per clause: Max
        s = 0;
      }
      scratch_.seen[local] = 0;
      fn(begin_ + local, float(combined));
    }
  }

 private:
  // The chunk's posting lists of the query's terms, strongest possible contribution first.
  std::vector<TermPostings> Lists(const TextChunk& chunk) const;
  double* Slot(const TermPostings& l) { return scratch_.acc.data() + (slots_ == 1 ? 0 : l.clause) * rows_; }
  // Whether a score bounded by bound stays strictly under threshold as the float scores candidates
  // carry (a tie could still win on collection and id).
  static bool Below(double bound, float threshold) { return float(bound * (1 + 1e-9)) < threshold; }
  // Adds the list's contribution to every live row it holds, block by block. A block whose bound
  // (plus what later lists could add) stays under the window's current threshold cannot bring a
  // document into the window: it is skipped, except that documents already seen take their share.
  void Admit(const TermPostings& l, double later);
  // Adds the list's contribution to the rows already seen (touched is sorted), skipping the rest.
  void Update(const TermPostings& l);
  // The k-th largest partial sum among the touched rows (Sum only; k <= touched.size()).
  double KthBest(size_t k);

  const PreparedCollection& pc_;
  const SegmentRef& ref_;
  const size_t slots_;
  const bool prunable_;
  ScoreScratch& scratch_;
  std::vector<double> sums_;
  uint32_t begin_ = 0, rows_ = 0;
  size_t window_ = 0;
  float floor_ = -INFINITY;
};

}  // namespace tessera
