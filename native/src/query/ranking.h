// The passes every ranked route shares after scoring: rank_by's decay penalty, limit_per and
// diversity over an over-fetched window, in the spec's order.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "query/candidate.h"
#include "query/search_params.h"

namespace tessera {

// limit_per is exact within this many candidates per page slot; diversity reorders this window.
constexpr size_t kLimitPerOverfetch = 10;
constexpr size_t kMaxWindow = 100000;
constexpr size_t kDiversityWindow = 512;

// How deep a route must rank before limit_per and diversity so the page they leave is right.
size_t RankWindow(const SearchParams& p);

// rank_by's penalty for one record: a timestamp is a usable Int or DateTime, else `missing` applies.
double DecayPenalty(const DecayRank& d, std::string_view attrs);

// Greedy in rank order: at most max hits per stored value of the field (missing is one group).
std::vector<Candidate> CapPerValue(std::vector<Candidate> ranked, const LimitPer& lp);

// Maximal marginal relevance over the first kDiversityWindow candidates: relevance is the score
// scaled to [0, 1] within the window, redundancy the cosine similarity of stored vectors.
void Diversify(std::vector<Candidate>& ranked, double lambda, uint32_t dim);

// limit_per, then diversity, as p asks, over a ranking sorted best first.
void ApplyRankPasses(std::vector<Candidate>& ranked, const SearchParams& p, uint32_t dim);

}  // namespace tessera
