// The handle a request's core call runs under: cooperative cancellation (long loops poll the
// token every few thousand rows), and the short plan of the vector query that ran under it, which
// the service logs for slow queries without the caller asking for a plan.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "tessera/error.h"

namespace tessera {

// Long loops poll their token at least this often (rows, postings or terms visited).
constexpr uint32_t kRowsPerCancelCheck = 4096;

// The short plan of the vector query that ran last under a token, what the slow-query log prints.
struct ShortPlan {
  const char* path = nullptr;  // a static string; null: no vector query ran
  uint64_t total_ns = 0, rows_scanned = 0;
  uint64_t surfaced = 0, survived = 0, dropped_out_of_scope = 0, dropped_stale = 0, dropped_filtered = 0, dropped_min_score = 0;
};

class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  void ThrowIfCancelled() const {
    if (cancelled()) throw Error(Status::kCancelled, "the request was cancelled");
  }

  // One token may serve several concurrent calls (a Cancellation passed to many), so the plan
  // (the latest set) is guarded. It is kept as counts and written as JSON only when asked for: the
  // log asks only for slow queries.
  void set_plan(const ShortPlan& plan) const {
    std::lock_guard<std::mutex> lock(plan_mu_);
    plan_ = plan;
  }
  void clear_plan_summary() const { set_plan(ShortPlan{}); }
  // {path, total_us, rows_scanned?, candidates?} as JSON; empty when no vector query ran.
  // Written by query/query_plan.cc.
  std::string plan_summary() const;

 private:
  std::atomic<bool> cancelled_{false};
  mutable std::mutex plan_mu_;
  mutable ShortPlan plan_;
};

}  // namespace tessera
