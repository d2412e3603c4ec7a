// Appends ops to the write-ahead log. A large one is written and synced on one thread while it is
// applied on another (the query pool's: an idle thread spins there, so the apply starts at once),
// so a batch's fdatasync overlaps its own apply. The caller publishes nothing before Sync()
// returns, so what readers see is still durable.
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <string>

#include "catalog/ops.h"
#include "storage/wal.h"
#include "util/thread_pool.h"

namespace tessera {

class LogPipeline {
 public:
  LogPipeline(Wal* wal, uint32_t dim, ThreadPool& pool);
  LogPipeline(const LogPipeline&) = delete;
  LogPipeline& operator=(const LogPipeline&) = delete;

  // Whether op's apply outlasts handing it to another thread.
  static bool Large(const Op& op);
  // Appends op's record at version and calls apply. A Large op's record is written and synced
  // while apply runs on another thread; a small one's is written here and synced by Sync(). Both
  // have run when it returns; it rethrows the first error of either. After a failed write or sync
  // it throws at once, and so does every Sync: a log that failed cannot be trusted again (an
  // fsync's error is reported once, and a later one may succeed with the data lost).
  void AppendAndApply(uint64_t version, const Op& op, const std::function<void()>& apply);
  // Every record appended is durable when it returns.
  void Sync();

 private:
  // Encodes op's record and appends it to the log; syncs when sync is set.
  void Write(uint64_t version, const Op& op, bool sync);

  Wal* wal_;
  uint32_t dim_;
  ThreadPool& pool_;
  std::string payload_;  // reused: a fresh buffer per batch faults its pages in every time
  bool unsynced_ = false;
  std::exception_ptr error_;  // the first write or sync that failed
};

}  // namespace tessera
