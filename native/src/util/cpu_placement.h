// Which CPU a thread runs on, and moving it to another. The query threads use these to keep off
// the CPU of the thread that submits their work (util/thread_pool.cc says why).
#pragma once

namespace tessera {

// The CPU the calling thread runs on, or -1 where the platform does not say (Linux answers from the
// vDSO, in tens of nanoseconds).
int CurrentCpu();

// Moves the calling thread off CPU cpu to another CPU it may run on: its affinity is narrowed to
// exclude cpu, which migrates it at once, then put back as it was, which leaves it where it is.
// False when it may run nowhere else, or where the platform cannot say. About 17 us on a VM.
bool MoveOffCpu(int cpu);

}  // namespace tessera
