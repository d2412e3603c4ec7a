// PreparedQuery: a read route's parsed parameters bound to a snapshot and to the function that
// answers them (Store::Prepare makes one per request).
#pragma once
#include <string>
#include <utility>

#include "query/context.h"
#include "tessera/error.h"
#include "tessera/footprint.h"
#include "tessera/options.h"
#include "tessera/prepared_read.h"

namespace tessera {

// What a read runs with besides its snapshot and parameters: the store's settings and threads.
struct QueryEnvironment {
  Metric metric;
  ThreadPool* pool;         // the query threads
  ThreadPool* inline_pool;  // no threads: a read run inline never hands tasks over
  const AnnConfig* ann;     // null: exact search
  const QuantizationConfig* quantization;
  FootprintCounters* counters;  // reads_inline, reads_queued
};

// hits: the answer as arrays (RunHits), for /search; null for the other routes.
template <typename Params, typename Answer>
class PreparedQuery final : public PreparedRead {
 public:
  using HitsAnswer = HitList (*)(const QueryContext&, const Params&);

  PreparedQuery(SnapshotPtr snap, Params params, Answer answer, const QueryEnvironment& env, bool runs_inline, HitsAnswer hits = nullptr)
      : snap_(std::move(snap)), params_(std::move(params)), answer_(answer), hits_(hits), env_(env) {
    runs_inline_ = runs_inline;
  }

  std::string Run(const CancelToken& cancel) override { return answer_(Context(cancel), std::move(params_)); }

  HitList RunHits(const CancelToken& cancel) override {
    if (hits_ == nullptr) throw BadRequest("only /search answers as arrays of hits");
    return hits_(Context(cancel), params_);
  }

 private:
  QueryContext Context(const CancelToken& cancel) {
    ThreadPool& pool = runs_inline_ ? *env_.inline_pool : *env_.pool;
    (runs_inline_ ? env_.counters->reads_inline : env_.counters->reads_queued).fetch_add(1, std::memory_order_relaxed);
    return QueryContext{*snap_, env_.metric, pool, cancel, env_.ann, env_.quantization};
  }

  SnapshotPtr snap_;
  Params params_;
  Answer answer_;
  HitsAnswer hits_;
  QueryEnvironment env_;
};

}  // namespace tessera
