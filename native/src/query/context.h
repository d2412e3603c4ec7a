// What every read runs against: one snapshot, the store's metric, the query threads, the
// request's cancel token and the approximate index configuration.
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
  const AnnConfig* ann = nullptr;                    // null: exact search
  const QuantizationConfig* quantization = nullptr;  // null: no quantized first pass
};

}  // namespace tessera
