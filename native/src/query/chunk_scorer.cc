#include "query/chunk_scorer.h"

#include <algorithm>
#include <functional>

namespace tessera {
namespace {

constexpr uint32_t kRecheckPostings = 1024;  // how often block skipping recomputes its threshold

}  // namespace

ScoreScratch& ScoreScratch::ForThisThread(size_t accumulators, size_t rows) {
  thread_local ScoreScratch scratch;
  if (scratch.dirty) {
    std::fill(scratch.acc.begin(), scratch.acc.end(), 0.0);
    std::fill(scratch.seen.begin(), scratch.seen.end(), 0);
  }
  if (scratch.acc.size() < accumulators) scratch.acc.resize(accumulators, 0.0);
  if (scratch.seen.size() < rows) scratch.seen.resize(rows, 0);
  scratch.touched.clear();
  scratch.dirty = true;
  return scratch;
}

std::vector<TermPostings> ChunkScorer::Lists(const TextChunk& chunk) const {
  std::vector<TermPostings> lists;
  for (size_t ci = 0; ci < pc_.clauses.size(); ++ci) {
    const PreparedClause& clause = pc_.clauses[ci];
    if (clause.terms.empty()) continue;
    const FieldPostings& fp = chunk.field(size_t(clause.field));
    for (const ScoredTerm& term : clause.terms) {
      int64_t ti = fp.Find(term.term);
      if (ti < 0) continue;
      double bound = clause.Score(fp.max_tf[size_t(ti)], fp.min_dl[size_t(ti)], term.idf);
      lists.push_back({ci, &fp, size_t(ti), fp.term_start[size_t(ti)], fp.term_start[size_t(ti) + 1], term.idf, bound});
    }
  }
  std::sort(lists.begin(), lists.end(), [](const TermPostings& a, const TermPostings& b) { return a.bound > b.bound; });
  return lists;
}

void ChunkScorer::Admit(const TermPostings& l, double later) {
  const PreparedClause& clause = pc_.clauses[l.clause];
  const FieldPostings& fp = *l.fp;
  double* acc = Slot(l);
  const bool none_seen = scratch_.touched.empty();
  float threshold = -INFINITY;
  uint32_t unchecked = kRecheckPostings;  // postings admitted since the threshold was computed
  uint32_t block = fp.block_start[l.term];
  for (uint32_t first = l.first; first < l.last; first += kPostingsBlock, ++block) {
    const uint32_t last = std::min(first + kPostingsBlock, l.last);
    if (prunable_ && scratch_.touched.size() >= window_) {
      if (unchecked >= kRecheckPostings) {
        threshold = std::max(floor_, float(KthBest(window_)));
        unchecked = 0;
      }
      if (Below(clause.Score(fp.block_max_tf[block], fp.block_min_dl[block], l.idf) + later, threshold)) {
        if (!none_seen)
          for (uint32_t i = first; i < last; ++i) {
            uint32_t local = fp.docs[i] - begin_;
            if (scratch_.seen[local]) acc[local] += clause.Score(fp.tfs[i], fp.doc_len[local], l.idf);
          }
        continue;
      }
    }
    for (uint32_t i = first; i < last; ++i) {
      uint32_t row = fp.docs[i];
      if (!pc_.text.Visible(ref_, row)) continue;
      uint32_t local = row - begin_;
      acc[local] += clause.Score(fp.tfs[i], fp.doc_len[local], l.idf);
      if (!scratch_.seen[local]) {
        scratch_.seen[local] = 1;
        scratch_.touched.push_back(local);
      }
    }
    unchecked += last - first;
  }
}

void ChunkScorer::Update(const TermPostings& l) {
  const PreparedClause& clause = pc_.clauses[l.clause];
  double* acc = Slot(l);
  auto from = l.fp->docs.begin() + l.first, to = l.fp->docs.begin() + l.last;
  for (uint32_t local : scratch_.touched) {
    from = std::lower_bound(from, to, begin_ + local);
    if (from == to) break;
    if (*from != begin_ + local) continue;
    acc[local] += clause.Score(l.fp->tfs[size_t(from - l.fp->docs.begin())], l.fp->doc_len[local], l.idf);
  }
}

double ChunkScorer::KthBest(size_t k) {
  sums_.clear();
  for (uint32_t local : scratch_.touched) sums_.push_back(scratch_.acc[local]);
  std::nth_element(sums_.begin(), sums_.begin() + long(k - 1), sums_.end(), std::greater<double>());
  return sums_[k - 1];
}

}  // namespace tessera
