// The second pass of a quantized search: the candidates a first pass ranked by estimated distance
// are scored exactly from the segment's f32 rows, and only those reach the query's window.
#pragma once
#include <vector>

#include "index/vector_index.h"
#include "index/vector_space.h"

namespace tessera {

// Scores the `keep` candidates with the smallest estimates exactly, best estimate first, and
// offers them to sink. With prune (estimates from Int8 codes), once the window has its rows a
// candidate whose estimate, less kPruneSlack times the largest overestimate among the rows
// rescored so far, still ranks under what sink wants is left unread: the rescored rows measure
// the codes' error for this query, and the candidate would need an error several times larger to
// enter. Binary estimates are too coarse to rule a row out this way.
void RescoreBest(const Segment& segment, const VectorQuery& query, std::vector<Neighbor>& candidates, size_t keep, ScoreSink& sink,
                 SearchTrace& trace, bool prune = false);

}  // namespace tessera
