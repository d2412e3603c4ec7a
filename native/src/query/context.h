// What every read runs against: one snapshot, the store's metric, the query threads and the
// request's cancel token.
#pragma once
#include "catalog/snapshot.h"
#include "tessera/cancel.h"
#include "tessera/options.h"
#include "util/thread_pool.h"

namespace tessera {

struct QueryContext {
  const Snapshot& snap;
  Metric metric;
  ThreadPool& pool;
  const CancelToken& cancel;
};

}  // namespace tessera
