// A read request parsed and bound to the snapshot it answers from, ready to run. Preparing is
// cheap enough for the JS thread (the body is parsed, nothing is scanned); Run does the work, on
// the query threads, or on the caller's thread when the estimate says it costs less than handing
// it over would.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/cancel.h"

namespace tessera {

// The read routes a request can be prepared for (Store::Prepare).
enum class ReadRoute { kSearch, kSimilar, kBatch, kText, kHybrid, kSuggest, kList, kAggregate };

// How costly a read may be and still run on the thread that prepared it (Store::Prepare).
enum class InlineBound : uint8_t {
  kNone,     // never: it runs on a query thread whatever it costs
  kHandoff,  // when it costs less than handing it to a query thread (kInlineMaxBytes, kInlineMaxPostings)
  kSync,     // when it costs at most kSyncMaxBytes, an indexed walk included (/search), or kSyncMaxPostings
             // (/text-search); other routes as kHandoff
};

// A prepared /search may run on its caller's thread when its segments' indexes read at most this
// many bytes of vectors and codes (an exact scan: every row; a walk: about ef x 2m codes and the
// rows it rescores), its window at most kInlineMaxWindow hits of its largest record, and it asks
// for nothing whose cost those bytes do not bound (a filter, named vectors, diversity, limit_per,
// an expand with a radius). kInlineMaxBytes: 1,000 x 128 f32 rows answer a top-10 in about 10 us
// with the AVX2 kernels and 40 us with the scalar ones, less than a handoff. kSyncMaxBytes: about
// 250 us here (an Int8 HNSW walk of 784-d Fashion-MNIST at ef_search 64, estimated 1.7 MB, takes
// 60-90 us; an exact scan reads about 15 bytes a nanosecond).
constexpr size_t kInlineMaxBytes = 768 * 1024;
constexpr size_t kSyncMaxBytes = 4 * 1024 * 1024;
constexpr size_t kInlineMaxWindow = 256;
// A /text-search may run inline when it reads at most this many postings (and writes at most
// kInlineMaxBytes of records): about 20 us here. Its terms are looked up where it arrives only when
// the scope's text chunks times the query's words stay under kInlineMaxLookups.
constexpr uint64_t kInlineMaxPostings = 4096;
// Under InlineBound::kSync (a server with several HTTP threads) a /text-search runs where it
// arrives up to this many postings: about 250 us here, as kSyncMaxBytes bounds a /search.
constexpr uint64_t kSyncMaxPostings = 48 * 1024;
constexpr uint64_t kInlineMaxLookups = 4096;

// A /search page as parallel arrays, best first (PreparedRead::RunHits): no JSON written or parsed.
// The views point into the snapshot the PreparedRead holds: valid while it lives.
struct HitList {
  std::vector<std::string_view> collections, ids;
  std::vector<float> scores;
};

class PreparedRead {
 public:
  virtual ~PreparedRead() = default;
  // Whether Run is cheap enough to run where it was prepared (see kInlineMaxBytes).
  bool runs_inline() const { return runs_inline_; }
  // Runs the read once; the answer's JSON bytes. The store that prepared it must still be
  // referenced (it may be closed meanwhile: the snapshot stays readable).
  virtual std::string Run(const CancelToken& cancel) = 0;
  // Runs a /search once, its page as arrays; Error(400) for another route, and for a search whose
  // answer is more than its hits (plan, expand).
  virtual HitList RunHits(const CancelToken& cancel) = 0;

 protected:
  bool runs_inline_ = false;
};

}  // namespace tessera
