#include "group_commit.h"

namespace tessera {

uint64_t GroupCommit::Commit(PendingWrite& write) {
  MutexLock queued(queue_mu_);
  queue_.push_back(&write);
  while (!write.done) {
    if (leader_active_) {
      queue_cv_.Wait(queue_mu_);
      continue;
    }
    // Become the leader: commit everything queued so far behind one fsync, without the queue's
    // mutex, so later writers queue up for the next group meanwhile.
    leader_active_ = true;
    std::deque<PendingWrite*> group;
    group.swap(queue_);
    queue_mu_.unlock();
    {
      MutexLock writer(writer_);
      commit_(group);
    }
    queue_mu_.lock();
    for (PendingWrite* p : group) p->done = true;
    leader_active_ = false;
    queue_cv_.NotifyAll();
  }
  if (write.error) std::rethrow_exception(write.error);
  return write.result;
}

}  // namespace tessera
