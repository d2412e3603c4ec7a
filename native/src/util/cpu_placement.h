// Which CPU a thread runs on, and moving it to another. The query threads use these to keep off
// the CPU of the thread that submits their work (util/thread_pool.cc says why).
#pragma once
#include <functional>
#include <span>

namespace tessera {

// The CPU the calling thread runs on, or -1 where the platform does not say (Linux answers from the
// vDSO, in tens of nanoseconds).
int CurrentCpu();

// Moves the calling thread to a CPU it may run on other than those of avoid (-1 entries ignored):
// its affinity is narrowed to exclude them, which migrates it at once, then put back as it was,
// which leaves it where it is. False, moving nothing, when no such CPU is left or where the
// platform cannot say. About 17 us on a VM.
bool MoveOffCpus(std::span<const int> avoid);

// How a ThreadPool learns a thread's CPU and moves it: the two functions above, or stand-ins a
// test controls (the kernel moves threads too, so the pool's policy cannot be pinned down on real
// CPUs).
struct CpuPlacement {
  std::function<int()> current = CurrentCpu;
  std::function<bool(std::span<const int>)> move_off = MoveOffCpus;
};

}  // namespace tessera
