#include "background_scheduler.h"

#include <utility>

namespace tessera {

bool BackgroundScheduler::QueueBuild(uint64_t segment_id, std::function<void()> build) {
  {
    MutexLock lock(mu_);
    if (!building_.insert(segment_id).second) return false;
    pending_ = building_.size();
  }
  worker_.Post(std::move(build));
  return true;
}

void BackgroundScheduler::BuildEnded(uint64_t segment_id) {
  MutexLock lock(mu_);
  building_.erase(segment_id);
  pending_ = building_.size();
  builds_ended_.NotifyAll();
}

void BackgroundScheduler::WaitBuildsEnded() {
  MutexLock lock(mu_);
  const std::set<uint64_t> waited = building_;
  while (AnyBuilding(waited)) builds_ended_.Wait(mu_);
}

bool BackgroundScheduler::AnyBuilding(const std::set<uint64_t>& ids) {
  for (uint64_t id : ids)
    if (building_.count(id) > 0) return true;
  return false;
}

bool BackgroundScheduler::Building(uint64_t segment_id) {
  MutexLock lock(mu_);
  return building_.count(segment_id) > 0;
}

bool BackgroundScheduler::QueueCompaction(const std::function<bool()>& worth, std::function<void()> compaction) {
  {
    MutexLock lock(mu_);
    if (compaction_queued_ || !worth()) return false;
    compaction_queued_ = true;
  }
  worker_.Post(std::move(compaction));
  return true;
}

void BackgroundScheduler::CompactionEnded() {
  MutexLock lock(mu_);
  compaction_queued_ = false;
}

void BackgroundScheduler::Stop() {
  stop_.Cancel();
  worker_.Stop();
  // The builds dropped from the queue never end: nobody waits for them.
  MutexLock lock(mu_);
  building_.clear();
  pending_ = 0;
  builds_ended_.NotifyAll();
}

}  // namespace tessera
