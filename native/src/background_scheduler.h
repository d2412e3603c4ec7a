// BackgroundScheduler: the store's background work, run in turn on one thread at background
// priority (util/thread_priority.h; a build fans out over the build pool, as many threads as the
// query pool, at that priority too): a sealed segment's index build, queued once per segment, and
// compactions, one queued or running at a time. Stop cancels the running job through stop() and
// drops the queued ones.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <set>

#include "tessera/cancel.h"
#include "util/background_worker.h"
#include "util/mutex.h"

namespace tessera {

class BackgroundScheduler {
 public:
  // pending counts the builds queued or running (FootprintCounters::index_builds_pending).
  explicit BackgroundScheduler(std::atomic<uint64_t>& pending) : pending_(pending) {}

  // Queues build for segment_id unless one is queued or running already (false then).
  bool QueueBuild(uint64_t segment_id, std::function<void()> build) TS_EXCLUDES(mu_);
  // segment_id's build ended (built, failed or cancelled): another may be queued.
  void BuildEnded(uint64_t segment_id) TS_EXCLUDES(mu_);
  bool Building(uint64_t segment_id) TS_EXCLUDES(mu_);
  // Blocks until the builds queued or running now have ended (one queued behind a compaction waits
  // for it; builds queued meanwhile are not waited for), or the scheduler stopped.
  void WaitBuildsEnded() TS_EXCLUDES(mu_);

  // Queues compaction when none is queued or running and worth() says there is work (asked only
  // then: it reads the state); false otherwise. It ends with CompactionEnded, before which no
  // other is queued.
  bool QueueCompaction(const std::function<bool()>& worth, std::function<void()> compaction) TS_EXCLUDES(mu_);
  void CompactionEnded() TS_EXCLUDES(mu_);

  // Any other job, in turn with the rest.
  void Post(std::function<void()> job) { worker_.Post(std::move(job)); }
  // Blocks until no job is queued or running.
  void WaitIdle() { worker_.WaitIdle(); }
  // Cancels the running job (it polls stop()) and drops the queued ones; nothing runs after.
  void Stop();
  const CancelToken& stop() const { return stop_; }

 private:
  std::atomic<uint64_t>& pending_;
  CancelToken stop_;
  BackgroundWorker worker_{std::chrono::milliseconds(0), ThreadPriority::kBackground};
  Mutex mu_;
  bool AnyBuilding(const std::set<uint64_t>& ids) TS_REQUIRES(mu_);

  std::set<uint64_t> building_ TS_GUARDED_BY(mu_);
  CondVar builds_ended_;
  bool compaction_queued_ TS_GUARDED_BY(mu_) = false;
};

}  // namespace tessera
