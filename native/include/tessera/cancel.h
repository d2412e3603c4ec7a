// Cooperative cancellation: long loops poll the token every few thousand rows.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

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

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace tessera
