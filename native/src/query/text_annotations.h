// The text members of a hit's annotations: `clauses` (explain: each matched clause's score and
// prefix expansion) and `highlights` (fragments of the stored text around matching words).
#pragma once
#include "query/candidate.h"
#include "query/text_prepare.h"
#include "util/json_writer.h"

namespace tessera {

// Writes the members the query asks for (explain, highlight) into the open annotations object.
void WriteTextAnnotations(JsonWriter& w, const TextQuery& q, const PreparedCollection& pc, const Candidate& c);

}  // namespace tessera
