// The BM25 formula (docs/full-text.md): a term's idf over a collection's live documents, and its
// score in one document. Every text score (the chunk scorer, a clause's score of one row, the
// pruning bounds) is computed here.
#pragma once
#include <cmath>
#include <cstdint>

namespace tessera {

// idf of a term held by df of docs live documents (the "plus one" form: never negative).
inline double Bm25Idf(uint64_t docs, uint64_t df) { return std::log(1 + (double(docs) - double(df) + 0.5) / (double(df) + 0.5)); }

// A term's score in a document of dl tokens holding it tf times, against its field's average
// length avgdl and parameters k1 and b.
inline double Bm25Score(uint32_t tf, uint32_t dl, double idf, double k1, double b, double avgdl) {
  double norm = k1 * (1 - b + b * double(dl) / avgdl);
  return idf * tf * (k1 + 1) / (tf + norm);
}

}  // namespace tessera
