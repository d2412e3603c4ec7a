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

bool MoveOffCpu(int cpu) {
#ifdef __linux__
  cpu_set_t allowed, elsewhere;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  elsewhere = allowed;
  CPU_CLR(cpu, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0 || sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return false;
  sched_setaffinity(0, sizeof allowed, &allowed);
  return CurrentCpu() != cpu;
#else
  (void)cpu;
  return false;
#endif
}

}  // namespace tessera
