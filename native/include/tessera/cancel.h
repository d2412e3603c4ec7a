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

class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  void ThrowIfCancelled() const {
    if (cancelled()) throw Error(Status::kCancelled, "the request was cancelled");
  }

  // One token may serve several concurrent calls (a Cancellation passed to many), so the summary
  // (the latest written) is guarded.
  void set_plan_summary(std::string summary) const {
    std::lock_guard<std::mutex> lock(plan_summary_mu_);
    plan_summary_ = std::move(summary);
  }
  void clear_plan_summary() const {
    std::lock_guard<std::mutex> lock(plan_summary_mu_);
    plan_summary_.clear();
  }
  std::string plan_summary() const {
    std::lock_guard<std::mutex> lock(plan_summary_mu_);
    return plan_summary_;
  }

 private:
  std::atomic<bool> cancelled_{false};
  mutable std::mutex plan_summary_mu_;
  mutable std::string plan_summary_;  // JSON; empty when no vector query ran
};

}  // namespace tessera
