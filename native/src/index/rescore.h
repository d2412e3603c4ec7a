// The second pass of a quantized search: the candidates a first pass ranked by estimated distance
// are scored exactly from the segment's f32 rows, and only those reach the query's window.
#pragma once
#include <vector>

#include "index/vector_index.h"
#include "index/vector_space.h"

namespace tessera {

// Scores the `keep` candidates with the smallest estimates exactly and offers them to sink.
void RescoreBest(const Segment& segment, const VectorQuery& query, std::vector<Neighbor>& candidates, size_t keep, ScoreSink& sink,
                 SearchTrace& trace);

}  // namespace tessera
