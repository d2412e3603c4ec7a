// The spec's query plan ("Query plans"): which path a vector query took, what its index walks
// surfaced and dropped, what the filter indexes did, and where the time went.
#pragma once
#include <cstdint>
#include <string>

#include "index/vector_index.h"
#include "query/scan.h"
#include "tessera/cancel.h"
#include "util/clock.h"
#include "util/json_writer.h"

namespace tessera {

struct QueryPlan {
  // ann, ann_prefilter_fallback, segmented, quantized or exact.
  const char* path = "exact";
  SearchTrace trace;
  Narrowing narrowing;
  uint64_t narrow_ns = 0, resolve_ns = 0, total_ns = 0;
};

// Writes the plan object: rows_scanned absent on index paths, candidates absent on paths that
// surface none, timings only for phases that ran.
void WritePlan(JsonWriter& w, const QueryPlan& plan);

// The short form the slow-query log carries (path, total_us, rows_scanned and candidates), as a
// query leaves it on its token (CancelToken::plan_summary writes it).
ShortPlan ShortPlanOf(const QueryPlan& plan);

// {"hits": [...], "plan": {...}}, the response of a query asked with plan: true.
template <typename WriteHits>
std::string HitsAndPlanJson(WriteHits&& write_hits, const QueryPlan& plan) {
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Key("hits");
    write_hits(w);
    w.Key("plan");
    WritePlan(w, plan);
  });
}

}  // namespace tessera
