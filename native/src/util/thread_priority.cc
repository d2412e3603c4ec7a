#include "util/thread_priority.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera {

namespace {
constexpr int kBackgroundNice = 10;
}  // namespace

void SetCurrentThreadPriority(ThreadPriority priority) {
  if (priority != ThreadPriority::kBackground) return;
#ifdef __linux__
  // On Linux a thread's nice value is its own: PRIO_PROCESS with a thread id sets just that thread.
  // A process started nicer than that stays as it is.
  const id_t thread = static_cast<id_t>(::syscall(SYS_gettid));
  if (::getpriority(PRIO_PROCESS, thread) < kBackgroundNice) ::setpriority(PRIO_PROCESS, thread, kBackgroundNice);
#endif
}

}  // namespace tessera
