#include "util/cpu_placement.h"

#include <sched.h>

namespace tessera {

int CurrentCpu() {
#ifdef __linux__
  return sched_getcpu();
#else
  return -1;
#endif
}

bool MoveOffCpus(std::span<const int> avoid) {
#ifdef __linux__
  cpu_set_t allowed, elsewhere;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  elsewhere = allowed;
  for (int cpu : avoid)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_CLR(cpu, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0 || sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return false;
  sched_setaffinity(0, sizeof allowed, &allowed);
  return true;
#else
  (void)avoid;
  return false;
#endif
}

}  // namespace tessera
