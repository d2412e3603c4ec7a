// The store: a directory (or nothing, in memory) holding collections of records. Every public
// method takes and returns JSON bytes; parsing and validation happen here, not in the binding.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "tessera/cancel.h"
#include "tessera/metric.h"
#include "tessera/ops.h"
#include "tessera/records_cursor.h"
#include "tessera/snapshot.h"
#include "tessera/store_state.h"
#include "tessera/thread_pool.h"
#include "tessera/wal.h"

namespace tessera {

enum class Role { kWriter, kReader, kInMemory };

struct StoreOptions {
  std::string path;
  bool in_memory = false;
  std::optional<uint32_t> dimension;
  std::optional<Metric> metric;
  size_t query_threads = 0;  // 0 = number of CPUs
  bool mmap = true;
  bool read_only = false;
};

struct FootprintCounters {
  std::atomic<uint64_t> rows{0}, dead_rows{0}, doc_count{0}, collections{0};
};

class Store {
 public:
  // Throws Error(400) on a header mismatch (naming both values) and Error(500) on IO faults.
  static std::unique_ptr<Store> Open(const StoreOptions& options);
  ~Store();

  std::string Collections();
  std::string CreateCollection(const std::string& name);
  std::string DropCollection(const std::string& name);
  std::string GetMeta(const std::string& name);
  std::string PutMeta(const std::string& name, std::string_view body);
  std::string SetVectorNames(const std::string& name, std::string_view body);
  std::string SetFilterIndex(const std::string& name, std::string_view body);
  std::string SetFtsSchema(const std::string& name, std::string_view body);
  std::string Aliases();
  std::string PutAlias(const std::string& name, std::string_view body);
  std::string DropAlias(const std::string& name);
  std::string Upsert(const std::string& name, std::string_view body);
  std::string Delete(const std::string& name, std::string_view body);
  std::unique_ptr<RecordsCursor> OpenRecords(const std::string& name);
  std::string Search(std::string_view body, const CancelToken& cancel);
  std::string SearchSimilar(std::string_view body, const CancelToken& cancel);
  std::string SearchBatch(std::string_view body, const CancelToken& cancel);
  std::string TextSearch(std::string_view body, const CancelToken& cancel);
  std::string HybridSearch(std::string_view body, const CancelToken& cancel);
  std::string Suggest(std::string_view body, const CancelToken& cancel);
  std::string List(std::string_view body, const CancelToken& cancel);
  std::string Aggregate(std::string_view body, const CancelToken& cancel);
  std::string Stats();
  // Makes every acknowledged write part of sealed segment files and empties the log.
  std::string Flush();
  void Close();

  Role role() const { return role_; }
  const std::string& writer_holder() const { return writer_holder_; }
  uint32_t dimension() const { return dim_; }
  Metric metric() const { return metric_; }
  size_t query_threads() const { return pool_->size(); }
  bool mmap() const { return options_.mmap; }
  uint64_t commit_version() const { return commit_version_.load(std::memory_order_acquire); }
  const FootprintCounters& footprint() const { return footprint_; }
  // Empty until an exception escapes while the write lock is held; then permanent.
  std::string poisoned() const;
  // Test hook: the next write throws inside the write lock.
  void InjectWriteFault() { inject_fault_.store(true); }

 private:
  explicit Store(const StoreOptions& options);
  void OpenFiles();
  void Recover();
  SnapshotPtr Current() const;
  void Publish(SnapshotPtr snap);
  // Commits op through the group-commit leader. prepare, when set, runs in the leader just before
  // validation, against the state every earlier batch left (a filter delete resolves its ids there).
  uint64_t Write(Op op, std::function<void(Op&)> prepare = nullptr);
  void CommitGroup(std::deque<struct PendingWrite*>& group);
  void Checkpoint();
  void Poison(const std::string& why);
  void CheckWritable() const;

  StoreOptions options_;
  uint32_t dim_ = 0;
  Metric metric_ = Metric::kCosine;
  Role role_ = Role::kWriter;
  std::string writer_holder_;
  int lock_fd_ = -1;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<StoreState> state_;
  Wal wal_;
  std::atomic<bool> closed_{false};

  mutable std::mutex snap_mu_;
  SnapshotPtr snap_;
  std::atomic<uint64_t> commit_version_{0};
  FootprintCounters footprint_;

  std::mutex writer_mu_;  // held by the group-commit leader, checkpoints and close
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<struct PendingWrite*> queue_;
  bool leader_active_ = false;
  uint64_t version_ = 0;  // writer-side; guarded by the leader role

  mutable std::mutex poison_mu_;
  std::string poisoned_;
  std::atomic<bool> inject_fault_{false};
};

}  // namespace tessera
