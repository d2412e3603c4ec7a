// The native self-tests' tally: Check() records one expectation, Report() prints the
// "N passed, M failed" line the test runner reads and gives the exit code. TempDir() gives a test
// a fresh directory for the files it saves.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera::test {

inline int passed = 0, failed = 0;

inline void Check(bool ok, const std::string& what) {
  if (ok) {
    ++passed;
  } else if (++failed <= 20) {  // the first failures say enough
    std::printf("FAIL %s\n", what.c_str());
  }
}

inline std::string TempDir() {
  std::string dir = "/tmp/tessera-native-test-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) std::abort();
  return dir;
}

inline int Report() {
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace tessera::test
