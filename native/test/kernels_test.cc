// Checks every kernel family this CPU runs against a double-precision reference. Built natively
// by CMake and cross-built for arm64 (run under qemu) by scripts/test-neon.sh, so the NEON path is
// exercised on x86 hosts too. Prints "N passed, M failed" and exits non-zero on any failure.
#include "tessera/kernels.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  const size_t dims[] = {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 100, 384, 768, 1023};
  int passed = 0, failed = 0;
  for (const tessera::Kernels* k : tessera::SupportedKernels()) {
    for (size_t n : dims) {
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<float> a(n), b(n);
        for (size_t i = 0; i < n; ++i) {
          a[i] = uni(rng);
          b[i] = uni(rng);
        }
        double dot = 0, l2 = 0, mag = 0;
        for (size_t i = 0; i < n; ++i) {
          dot += double(a[i]) * b[i];
          l2 += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
          mag += std::fabs(double(a[i]) * b[i]);
        }
        double tol = 1e-5 * (mag + 1);
        bool ok =
            std::fabs(k->dot(a.data(), b.data(), n) - dot) <= tol && std::fabs(k->l2sq(a.data(), b.data(), n) - l2) <= 1e-5 * (l2 + 1);
        // The multi-row kernels must agree with the single-row ones on each of several rows.
        std::vector<float> rows(n * 5), dots(5), l2s(5);
        for (size_t i = 0; i < rows.size(); ++i) rows[i] = uni(rng);
        k->dot_rows(a.data(), rows.data(), n, 5, dots.data());
        k->l2sq_rows(a.data(), rows.data(), n, 5, l2s.data());
        for (size_t r = 0; r < 5; ++r) {
          float d = k->dot(a.data(), rows.data() + r * n, n), l = k->l2sq(a.data(), rows.data() + r * n, n);
          ok = ok && std::fabs(dots[r] - d) <= 1e-5f * (std::fabs(d) + 1) && std::fabs(l2s[r] - l) <= 1e-5f * (l + 1);
        }
        if (ok) {
          ++passed;
        } else {
          ++failed;
          std::printf("FAIL %s n=%zu trial=%d\n", k->name, n, trial);
        }
      }
    }
    std::printf("family %s checked\n", k->name);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
