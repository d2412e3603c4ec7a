// Which CPU a thread runs on, and moving it to another. The query threads use these to keep off
// the CPU of the thread that submits their work (util/thread_pool.cc says why).
#pragma once
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

}  // namespace tessera
