// The writer's saver of derived files: on a thread of its own, it saves the text, filter and id
// parts that sealed segments of the current snapshot hold but that have no file of their rows and
// declaration in the store directory yet (after a seal or a declaration change), so the write
// path never waits on their writes and fsyncs. Requests coalesce: one pass serves every request
// made before it starts. A crash before a pass loses nothing: the next open rebuilds what is
// missing (and a damaged file, which only opening can tell, is rewritten there).
#pragma once
#include <atomic>
#include <functional>
#include <string>

#include "catalog/snapshot.h"
#include "util/background_worker.h"

namespace tessera {

class SealedIndexSaver {
 public:
  // current returns the snapshot a pass saves from; retired says whether a compaction replaced a
  // segment (VersionSet::Retired); sweep asks the writer to remove the files no version names.
  SealedIndexSaver(std::string dir, std::function<SnapshotPtr()> current, std::function<bool(uint64_t)> retired,
                   std::function<void()> sweep)
      : dir_(std::move(dir)), current_(std::move(current)), retired_(std::move(retired)), sweep_(std::move(sweep)) {}

  void SaveLater();
  // One pass on the caller's thread (closing, once the thread has stopped).
  void SaveNow();
  // Blocks until no pass is queued or running.
  void WaitIdle() { worker_.WaitIdle(); }
  // Drops a queued pass and joins the thread once a running one ends.
  void Stop() { worker_.Stop(); }

 private:
  std::string dir_;
  std::function<SnapshotPtr()> current_;
  std::function<bool(uint64_t)> retired_;
  std::function<void()> sweep_;
  std::atomic<bool> queued_{false};
  BackgroundWorker worker_{std::chrono::milliseconds(0), ThreadPriority::kBackground};
};

}  // namespace tessera
