#include "query/ranking.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "storage/field_reader.h"
#include "tessera/kernels.h"
#include "util/value.h"

namespace tessera {

size_t RankWindow(const SearchParams& p) {
  size_t window = size_t(p.offset) + p.top_k;
  if (p.diversity) window = std::max(window, kDiversityWindow);
  if (p.limit_per) window = std::min(kMaxWindow, window * kLimitPerOverfetch);
  return window;
}

double DecayPenalty(const DecayRank& d, std::string_view attrs) {
  double penalty = 0;
  ValueView v;
  if (!d.field.empty()) {
    bool usable = FindAttr(attrs, d.field, &v) && (v.tag == ValueTag::kInt || v.tag == ValueTag::kDateTime);
    double age = usable ? std::max(0.0, double(d.origin) - double(v.i)) : 0;
    double factor = usable ? std::pow(d.decay, age / d.scale) : d.missing;
    penalty += d.lambda * (1 - factor);
  }
  if (!d.count_field.empty()) {
    double n = 0;
    if (FindAttr(attrs, d.count_field, &v) && v.tag == ValueTag::kInt) n = std::max<double>(0, double(v.i));
    penalty += d.count_lambda * (1 - n / (n + d.count_scale));
  }
  return penalty;
}

std::vector<Candidate> CapPerValue(std::vector<Candidate> ranked, const LimitPer& lp) {
  std::unordered_map<std::string, uint32_t> seen;
  std::vector<Candidate> out;
  FieldReader field(lp.field);
  for (const Candidate& c : ranked) {
    ValueView v;
    bool found = field.Find(*c.segment, c.row, &v);
    if (!found && lp.missing_own_group) {
      out.push_back(c);  // a group of one, never over a max of at least 1
      continue;
    }
    std::string key = found ? ValueKey(v) : std::string();
    if (++seen[key] <= lp.max) out.push_back(c);
  }
  return out;
}

void Diversify(std::vector<Candidate>& ranked, double lambda, uint32_t dim) {
  size_t n = std::min(ranked.size(), kDiversityWindow);
  if (n < 3 || dim == 0) return;
  const Kernels& k = ActiveKernels();
  float hi = ranked[0].score, lo = ranked[n - 1].score;
  std::vector<double> relevance(n), norm(n), max_sim(n, -INFINITY);
  for (size_t i = 0; i < n; ++i) {
    relevance[i] = hi > lo ? (ranked[i].score - lo) / double(hi - lo) : 1.0;
    const Candidate& c = ranked[i];
    norm[i] = c.segment->has_vector(c.row) ? std::sqrt(k.dot(c.segment->vector(c.row), c.segment->vector(c.row), dim)) : 0;
  }
  auto similarity = [&](size_t a, size_t b) -> double {
    if (norm[a] == 0 || norm[b] == 0) return 0;  // no vector, no redundancy penalty
    const Candidate &x = ranked[a], &y = ranked[b];
    return k.dot(x.segment->vector(x.row), y.segment->vector(y.row), dim) / (norm[a] * norm[b]);
  };
  std::vector<size_t> order = {0};  // rank 1 never moves
  std::vector<bool> taken(n, false);
  taken[0] = true;
  for (size_t step = 1; step < n; ++step) {
    size_t last = order.back();
    size_t best = n;
    double best_value = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
      if (taken[i]) continue;
      max_sim[i] = std::max(max_sim[i], similarity(i, last));
      double value = lambda * relevance[i] - (1 - lambda) * max_sim[i];
      bool tie_wins = best < n && value == best_value &&
                      (ranked[i].collection != ranked[best].collection ? ranked[i].collection < ranked[best].collection
                                                                       : ranked[i].id() < ranked[best].id());
      if (value > best_value || tie_wins) {
        best = i;
        best_value = value;
      }
    }
    taken[best] = true;
    order.push_back(best);
  }
  std::vector<Candidate> window;
  for (size_t i : order) window.push_back(ranked[i]);
  std::copy(window.begin(), window.end(), ranked.begin());
}

void ApplyRankPasses(std::vector<Candidate>& ranked, const SearchParams& p, uint32_t dim) {
  if (p.limit_per) ranked = CapPerValue(std::move(ranked), *p.limit_per);
  if (p.diversity) Diversify(ranked, *p.diversity, dim);
}

}  // namespace tessera
