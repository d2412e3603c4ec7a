// PreparedQuery: a read route's parsed parameters bound to a snapshot and to the function that
// answers them (Store::Prepare makes one per request).
#pragma once
#include <string>
#include <utility>

#include "query/context.h"
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

template <typename Params, typename Answer>
class PreparedQuery final : public PreparedRead {
 public:
  PreparedQuery(SnapshotPtr snap, Params params, Answer answer, const QueryEnvironment& env, bool runs_inline)
      : snap_(std::move(snap)), params_(std::move(params)), answer_(answer), env_(env) {
    runs_inline_ = runs_inline;
  }

  std::string Run(const CancelToken& cancel) override {
    ThreadPool& pool = runs_inline_ ? *env_.inline_pool : *env_.pool;
    (runs_inline_ ? env_.counters->reads_inline : env_.counters->reads_queued).fetch_add(1, std::memory_order_relaxed);
    return answer_(QueryContext{*snap_, env_.metric, pool, cancel, env_.ann, env_.quantization}, std::move(params_));
  }

 private:
  SnapshotPtr snap_;
  Params params_;
  Answer answer_;
  QueryEnvironment env_;
};

}  // namespace tessera
