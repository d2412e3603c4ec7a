// A text query prepared against one collection: each clause's analyzed terms, its prefix
// expansion, and idf from statistics over the collection's live documents, so a score never
// depends on how rows are split into segments or chunks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "query/bm25.h"
#include "query/text_corpus.h"
#include "query/text_params.h"

namespace tessera {

struct ScoredTerm {
  std::string term;
  double idf;
  uint64_t df;  // live documents holding it: the postings a query reads for it
};

// One clause prepared against one collection: its terms with collection-wide idf.
struct PreparedClause {
  int field = -1;  // in the collection's schema; -1 matches nothing
  double k1 = 0, b = 0, avgdl = 0;
  std::vector<ScoredTerm> terms;
  bool prefix = false;
  uint64_t matched = 0, scored = 0;  // prefix expansion

  double Score(uint32_t tf, uint32_t dl, double idf) const { return Bm25Score(tf, dl, idf, k1, b, avgdl); }
};

struct PreparedCollection {
  CollectionText text;
  std::vector<PreparedClause> clauses;
};

// The query's clauses against one collection; each field's statistics are gathered once.
PreparedCollection Prepare(const CollectionText& text, const TextQuery& q);

// The clause's BM25 score for one row, or a negative value when the row holds none of its terms.
double ClauseScore(const PreparedClause& clause, const CollectionText& text, const Segment* segment, uint32_t row);

}  // namespace tessera
