// Where the query threads run: a thread is moved off CPUs on request, a query thread spinning for
// work on the CPU of the thread that submits it moves to another, and with no other CPU to go to
// every request still runs.
#include "util/thread_pool.h"

#include <sched.h>

#include <future>
#include <string>
#include <vector>

#include "check.h"
#include "util/cpu_placement.h"

using tessera::CurrentCpu;
using tessera::MoveOffCpus;
using tessera::ThreadPool;
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

void SpinningThreadLeavesTheSubmittersCpu(const cpu_set_t& all) {
  ThreadPool pool(1);
  // Both threads on CPU 0, the pool's free to leave: after a request run on CPU 0 it spins on the
  // submitter's CPU, which it leaves at its first check. On a loaded machine the kernel's balancer
  // may move it first; then no request runs on CPU 0 at all, which is as good. Without the move it
  // stays on CPU 0, taking turns with this thread.
  bool ran_on_zero = false;
  for (int i = 0; i < 10; ++i) {
    pool.Submit([&] {
      PinTo(0);
      sched_setaffinity(0, sizeof all, &all);
    });
    PinTo(0);  // this thread, the submitter
    for (int r = 0; r < 10; ++r) ran_on_zero |= CpuOfNextRequest(pool) == 0;
    sched_setaffinity(0, sizeof all, &all);
  }
  Check(pool.moves() > 0 || !ran_on_zero, "a query thread spinning on the submitter's CPU moves to another");
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

}  // namespace

int main() {
  cpu_set_t all;
  sched_getaffinity(0, sizeof all, &all);
  if (CPU_COUNT(&all) >= 2 && CPU_ISSET(0, &all)) {
    MoveOffCpusLeavesThemAndKeepsTheAffinity(all);
    SpinningThreadLeavesTheSubmittersCpu(all);
  } else {
    std::printf("fewer than two CPUs (or not CPU 0): only the one-CPU case runs\n");
  }
  WithOneCpuEveryRequestRuns(all);
  return tessera::test::Report();
}
