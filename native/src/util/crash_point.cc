#include "util/crash_point.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tessera {
namespace {

// TESSERA_CRASH_AT as a point's name and the hit it fires on (1 unless "@N" follows the name).
struct Armed {
  std::string name;
  long hit = 1;
};

Armed ReadArmed() {
  Armed armed;
  const char* value = std::getenv("TESSERA_CRASH_AT");
  if (value == nullptr) return armed;
  armed.name = value;
  if (size_t at = armed.name.find('@'); at != std::string::npos) {
    armed.hit = std::strtol(armed.name.c_str() + at + 1, nullptr, 10);
    armed.name.resize(at);
  }
  return armed;
}

}  // namespace

void CrashPoint(const char* name) {
  static const Armed armed = ReadArmed();
  static std::atomic<long> hits{0};
  if (armed.name.empty() || armed.name != name || hits.fetch_add(1) + 1 != armed.hit) return;
  std::fprintf(stderr, "tessera: crash point %s\n", name);
  std::raise(SIGKILL);
}

}  // namespace tessera
