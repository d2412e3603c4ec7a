// Where the query threads run: a thread is moved off CPUs on request, and with no other CPU to go
// to every request still runs. The pool's policy (a spinning thread leaves the submitter's CPU, a
// thread helping a ParallelFor leaves the caller's) is asserted with placement stand-ins: on real
// CPUs the kernel moves threads too, and a test of it there failed 2-4 runs in 40 under load.
#include "util/thread_pool.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "util/background_worker.h"
#include "util/cpu_placement.h"

using tessera::BackgroundWorker;
using tessera::CpuPlacement;
using tessera::CurrentCpu;
using tessera::MoveOffCpus;
using tessera::ThreadPool;
using tessera::ThreadPriority;
using tessera::test::Check;

namespace {

void PinTo(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}

// The CPU the pool's thread runs the next request on.
int CpuOfNextRequest(ThreadPool& pool) {
  std::promise<int> cpu;
  pool.Submit([&] { cpu.set_value(CurrentCpu()); });
  return cpu.get_future().get();
}

void MoveOffCpusLeavesThemAndKeepsTheAffinity(const cpu_set_t& all) {
  PinTo(0);
  sched_setaffinity(0, sizeof all, &all);  // on CPU 0, free to run anywhere
  const int zero[] = {0, -1};
  Check(MoveOffCpus(zero) && CurrentCpu() != 0, "MoveOffCpus({0}) moves the thread off CPU 0");
  cpu_set_t after;
  sched_getaffinity(0, sizeof after, &after);
  Check(CPU_EQUAL(&after, &all), "MoveOffCpus puts the thread's affinity back as it was");
  std::vector<int> every;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &all)) every.push_back(cpu);
  int before = CurrentCpu();
  Check(!MoveOffCpus(every) && CurrentCpu() == before, "MoveOffCpus moves nothing when it would leave no CPU");
  PinTo(0);
  Check(!MoveOffCpus(zero) && CurrentCpu() == 0, "MoveOffCpus fails where the thread may run nowhere else");
  sched_setaffinity(0, sizeof all, &all);
}

void WithOneCpuEveryRequestRuns(const cpu_set_t& all) {
  PinTo(0);
  {
    ThreadPool pool(1);  // its thread inherits this thread's single CPU: it parks, never moves
    int ran = 0;
    for (int i = 0; i < 200; ++i) ran += CpuOfNextRequest(pool) == 0;
    Check(ran == 200 && pool.moves() == 0, "with one CPU every request runs, on it: " + std::to_string(ran) + " of 200");
  }
  sched_setaffinity(0, sizeof all, &all);
}

// Stand-ins for the pool's placement: the submitting thread is on CPU 0, the pool's threads on
// pool_cpu; each move_off call is recorded and answered with moved.
class FakePlacement {
 public:
  FakePlacement(int pool_cpu, bool moved) : submitter_(std::this_thread::get_id()), pool_cpu_(pool_cpu), moved_(moved) {}

  CpuPlacement placement() {
    return {[this] { return std::this_thread::get_id() == submitter_ ? 0 : pool_cpu_; },
            [this](std::span<const int> avoid) {
              std::lock_guard<std::mutex> lock(mu_);
              calls_.emplace_back(avoid.begin(), avoid.end());
              changed_.notify_all();
              return moved_;
            }};
  }

  // The first move_off call's CPUs to avoid, once one was made; empty after 10 s without one.
  std::vector<int> FirstCall() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(10), [this] { return !calls_.empty(); });
    return calls_.empty() ? std::vector<int>{} : calls_.front();
  }
  size_t calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.size();
  }

 private:
  const std::thread::id submitter_;
  const int pool_cpu_;
  const bool moved_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::vector<int>> calls_;
};

void SpinningOnTheSubmittersCpuMovesOff() {
  FakePlacement fake(0, true);
  ThreadPool pool(1, true, fake.placement());
  CpuOfNextRequest(pool);
  // Idle after the request, the thread spins, finds itself on CPU 0 and moves off it (its own
  // entry is -1: no job running).
  Check(fake.FirstCall() == std::vector<int>{0, -1}, "a thread spinning on the submitter's CPU moves off that CPU");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.moves() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  Check(pool.moves() == 1, "the move is counted");
}

void SpinningOnAnotherCpuStays() {
  FakePlacement fake(1, true);
  {
    ThreadPool pool(1, true, fake.placement());
    for (int i = 0; i < 3; ++i) CpuOfNextRequest(pool);
  }  // joined: every spin after a request has made its first check of the CPU
  Check(fake.calls() == 0, "a thread spinning on a CPU other than the submitter's does not move");
}

void WithNowhereToGoNothingMovesAndRequestsRun() {
  FakePlacement fake(0, false);
  ThreadPool pool(1, true, fake.placement());
  int ran = 0;
  for (int i = 0; i < 3; ++i) ran += CpuOfNextRequest(pool) >= 0;
  Check(fake.FirstCall() == std::vector<int>{0, -1} && pool.moves() == 0 && ran == 3,
        "with no CPU to move to nothing is counted as moved, and every request still runs");
}

// ParallelFor over two tasks that each wait (up to 10 s) for the other to start, so a helper runs one.
bool RunTwoTogether(ThreadPool& pool) {
  std::atomic<int> started{0};
  pool.ParallelFor(2, [&](size_t) {
    started.fetch_add(1);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  });
  return started.load() == 2;
}

void AHelperStartingOnTheCallersCpuMovesOff() {
  FakePlacement fake(0, true);
  ThreadPool pool(2, true, fake.placement());
  bool together = RunTwoTogether(pool);
  Check(together && fake.calls() == 1 && fake.FirstCall().front() == 0,
        "a thread helping a ParallelFor that starts on the caller's CPU moves off it first");
}

void AHelperOnAnotherCpuStays() {
  FakePlacement fake(1, true);
  ThreadPool pool(2, true, fake.placement());
  Check(RunTwoTogether(pool) && fake.calls() == 0, "a thread helping a ParallelFor on another CPU than the caller's does not move");
}

int NiceOfThisThread() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))); }

// Index builds fan out over a background pool from a background worker: both run below the query
// threads' priority, and the query pool's threads keep theirs.
void BackgroundThreadsRunBelowTheQueryThreads() {
  const int base = NiceOfThisThread();
  ThreadPool queries(1);
  ThreadPool builds(1, false, CpuPlacement{}, ThreadPriority::kBackground);
  std::promise<int> query_nice, build_nice, worker_nice;
  queries.Submit([&] { query_nice.set_value(NiceOfThisThread()); });
  builds.Submit([&] { build_nice.set_value(NiceOfThisThread()); });
  BackgroundWorker worker(std::chrono::milliseconds(0), ThreadPriority::kBackground);
  worker.Post([&] { worker_nice.set_value(NiceOfThisThread()); });
  int q = query_nice.get_future().get(), b = build_nice.get_future().get(), w = worker_nice.get_future().get();
  Check(q == base, "a query thread keeps the process's priority (nice " + std::to_string(q) + ")");
  const bool lowered = base >= 10 || (b > base && w > base);  // a process started at nice 10 or more stays there
  Check(lowered, "a build pool thread and a background worker run at a lower priority (nice " + std::to_string(b) + ", " +
                     std::to_string(w) + " against " + std::to_string(base) + ")");
}

}  // namespace

int main() {
  BackgroundThreadsRunBelowTheQueryThreads();
  SpinningOnTheSubmittersCpuMovesOff();
  SpinningOnAnotherCpuStays();
  WithNowhereToGoNothingMovesAndRequestsRun();
  AHelperStartingOnTheCallersCpuMovesOff();
  AHelperOnAnotherCpuStays();
  cpu_set_t all;
  sched_getaffinity(0, sizeof all, &all);
  if (CPU_COUNT(&all) >= 2 && CPU_ISSET(0, &all)) {
    MoveOffCpusLeavesThemAndKeepsTheAffinity(all);
  } else {
    std::printf("fewer than two CPUs (or not CPU 0): only the one-CPU case runs\n");
  }
  WithOneCpuEveryRequestRuns(all);
  return tessera::test::Report();
}
