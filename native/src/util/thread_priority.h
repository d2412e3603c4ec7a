// Background work (index builds, compactions, derived-file saves) runs at a lower scheduling
// priority than requests: on an idle machine it has every core, and when queries want the cores
// the kernel gives them to the queries first. Nice 10 rather than SCHED_IDLE: a background thread
// briefly holds the store's locks (installing a compaction), and an idle-class holder could wait
// behind busy query threads indefinitely while a writer waits on it; at nice 10 it still gets
// about a tenth of a contended core.
#pragma once

namespace tessera {

enum class ThreadPriority { kNormal, kBackground };

// Sets the calling thread's priority; kNormal leaves it as it is (an unprivileged thread cannot
// raise it again, so a thread is made background for good). Linux only: elsewhere nothing.
void SetCurrentThreadPriority(ThreadPriority priority);

}  // namespace tessera
