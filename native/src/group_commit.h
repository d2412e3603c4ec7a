// GroupCommit: where concurrent writers meet. The first to arrive while none leads becomes the
// leader: it takes the writer mutex and commits every batch queued so far behind one fsync, then
// wakes the others with their results. A batch never waits for more than the group ahead of it.
#pragma once
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>

#include "catalog/ops.h"
#include "util/mutex.h"

namespace tessera {

// One batch waiting for the group-commit leader. prepare, when set, runs in the leader just
// before validation, against the state every earlier batch left (a filter delete resolves its ids
// there, and data routes resolve aliases there).
struct PendingWrite {
  explicit PendingWrite(Op o, std::function<void(Op&)> p = nullptr) : op(std::move(o)), prepare(std::move(p)) {}
  Op op;
  std::function<void(Op&)> prepare;
  uint64_t result = 0;
  std::exception_ptr error;
  bool done = false;
};

class GroupCommit {
 public:
  // Commits a group: runs in the leader with writer held, and sets each batch's result or error.
  using CommitFn = std::function<void(std::deque<PendingWrite*>& group)>;

  GroupCommit(Mutex& writer, CommitFn commit) : writer_(writer), commit_(std::move(commit)) {}

  // Returns once a leader (this thread or another) committed write: its result, or its error
  // rethrown.
  uint64_t Commit(PendingWrite& write) TS_EXCLUDES(queue_mu_, writer_);

 private:
  Mutex& writer_;
  const CommitFn commit_;
  Mutex queue_mu_;
  CondVar queue_cv_;
  std::deque<PendingWrite*> queue_ TS_GUARDED_BY(queue_mu_);
  bool leader_active_ TS_GUARDED_BY(queue_mu_) = false;
};

}  // namespace tessera
