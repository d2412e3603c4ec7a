// A read request parsed and bound to the snapshot it answers from, ready to run. Preparing is
// cheap enough for the JS thread (the body is parsed, nothing is scanned); Run does the work, on
// the query threads, or on the caller's thread when the estimate says it costs less than handing
// it over would.
#pragma once
#include <string>

#include "tessera/cancel.h"

namespace tessera {

// The read routes a request can be prepared for (Store::Prepare).
enum class ReadRoute { kSearch, kSimilar, kBatch, kText, kHybrid, kSuggest, kList, kAggregate };

// A prepared /search may run on its caller's thread when it touches at most this many bytes of
// stored data (vectors, ids and attributes of the whole snapshot) and asks for nothing whose cost
// those bytes do not bound (a filter, named vectors, diversity, a batch, more than
// kInlineMaxWindow hits). Measured: 1,000 x 128 f32 rows answer a top-10 in about 10 us with the
// AVX2 kernels and 40 us with the scalar ones.
constexpr size_t kInlineMaxBytes = 768 * 1024;
constexpr size_t kInlineMaxWindow = 256;
// A /text-search may run inline when it reads at most this many postings (and writes at most
// kInlineMaxBytes of records): about 20 us here. Its terms are looked up where it arrives only when
// the scope's text chunks times the query's words stay under kInlineMaxLookups.
constexpr uint64_t kInlineMaxPostings = 4096;
constexpr uint64_t kInlineMaxLookups = 4096;

class PreparedRead {
 public:
  virtual ~PreparedRead() = default;
  // Whether Run is cheap enough to run where it was prepared (see kInlineMaxBytes).
  bool runs_inline() const { return runs_inline_; }
  // Runs the read once; the answer's JSON bytes. The store that prepared it must still be
  // referenced (it may be closed meanwhile: the snapshot stays readable).
  virtual std::string Run(const CancelToken& cancel) = 0;

 protected:
  bool runs_inline_ = false;
};

}  // namespace tessera
