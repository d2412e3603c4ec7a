// Appends ops to the write-ahead log, a large one on a worker thread: the group-commit leader hands
// it over and applies it meanwhile, and the worker encodes it, appends it and syncs as soon as it
// has nothing more to append, so a batch's fdatasync overlaps its own apply. The leader publishes
// nothing before Sync() returns, so what readers see is still durable.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

#include "catalog/ops.h"
#include "storage/wal.h"
#include "util/background_worker.h"

namespace tessera {

class LogPipeline {
 public:
  LogPipeline(Wal* wal, uint32_t dim);
  ~LogPipeline();
  LogPipeline(const LogPipeline&) = delete;
  LogPipeline& operator=(const LogPipeline&) = delete;

  // Whether op is worth a hand-over: its apply outlasts the two thread wake-ups it costs.
  static bool Large(const Op& op);
  // Appends op's record at version: handed over when it is Large or the worker still holds ops
  // (the log keeps version order), else on the calling thread. A handed-over op must stay alive
  // and unchanged until Sync() or Quiesce() returns.
  void Append(uint64_t version, const Op& op);
  // Every record appended is durable when it returns. Throws the first error the worker met (the
  // store is poisoned then: a log that failed to write or sync cannot be trusted again).
  void Sync();
  // Waits until the worker holds no op, whatever it met: a failed commit unwinding.
  void Quiesce() noexcept;

 private:
  // Encodes op's record and appends it to the log.
  void Write(uint64_t version, const Op& op);
  // On the worker: appends one handed-over op, and syncs when it was the last one handed over.
  void WriteHandedOver(uint64_t version, const Op& op);

  Wal* wal_;
  uint32_t dim_;
  std::string payload_;  // reused: a fresh buffer per batch faults its pages in every time
  bool unsynced_here_ = false;

  std::mutex mu_;
  std::condition_variable synced_cv_;
  uint64_t handed_ = 0;   // ops handed over since open
  uint64_t written_ = 0;  // of those, appended (or skipped after an error)
  uint64_t synced_ = 0;   // of those, synced (or skipped after an error)
  std::exception_ptr error_;
  BackgroundWorker worker_;  // last: stopped before the state its jobs use goes
};

}  // namespace tessera
