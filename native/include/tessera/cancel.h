// The handle a request's core call runs under: cooperative cancellation (long loops poll the
// token every few thousand rows), and the short plan of the vector query that ran under it, which
// the service logs for slow queries without the caller asking for a plan.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "tessera/error.h"

namespace tessera {

// Long loops poll their token at least this often (rows, postings or terms visited).
constexpr uint32_t kRowsPerCancelCheck = 4096;

class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  void ThrowIfCancelled() const {
    if (cancelled()) throw Error(Status::kCancelled, "the request was cancelled");
  }

  // Written by the query thread before the call completes, read after it: no lock needed.
  void set_plan_summary(std::string summary) const { plan_summary_ = std::move(summary); }
  const std::string& plan_summary() const { return plan_summary_; }

 private:
  std::atomic<bool> cancelled_{false};
  mutable std::string plan_summary_;  // JSON; empty when no vector query ran
};

}  // namespace tessera
