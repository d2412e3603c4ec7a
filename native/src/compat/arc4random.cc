// Linked into prebuilds only (TESSERA_STATIC_RUNTIME): the static libstdc++ of Debian 12 refers to
// glibc 2.36's arc4random (std::random_device's "arc4random" source, which the core never uses),
// and that one reference would raise the prebuilds' glibc floor from 2.34 to 2.36, shutting out
// Ubuntu 22.04 and RHEL 9. This definition satisfies it inside the addon, from getrandom(2).
#include <sys/random.h>

#include <cstdint>

extern "C" uint32_t arc4random(void) {
  uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != sizeof value) {
  }
  return value;
}
