// Checks every kernel family this CPU runs: the f32 kernels against a double-precision reference,
// the int8 and popcount kernels exactly against an int64 reference. Built natively by CMake and
// cross-built for arm64 (run under qemu) by scripts/test-neon.sh, so the NEON path is exercised on
// x86 hosts too. Prints "N passed, M failed" and exits non-zero on any failure.
#include "tessera/kernels.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

std::mt19937 rng(42);
int passed = 0, failed = 0;

void Record(bool ok, const char* family, const char* op, size_t n, int trial) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAIL %s %s n=%zu trial=%d\n", family, op, n, trial);
  }
}

void CheckF32(const tessera::Kernels* k) {
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  const size_t dims[] = {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 100, 384, 768, 1023};
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
      bool ok = std::fabs(k->dot(a.data(), b.data(), n) - dot) <= tol && std::fabs(k->l2sq(a.data(), b.data(), n) - l2) <= 1e-5 * (l2 + 1);
      // The multi-row kernels score each row to the bit as the single-row ones do: an exact scan
      // and a rescore must give a row one score.
      std::vector<float> rows(n * 5), dots(5), l2s(5);
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = uni(rng);
      k->dot_rows(a.data(), rows.data(), n, 5, dots.data());
      k->l2sq_rows(a.data(), rows.data(), n, 5, l2s.data());
      for (size_t r = 0; r < 5; ++r)
        ok = ok && dots[r] == k->dot(a.data(), rows.data() + r * n, n) && l2s[r] == k->l2sq(a.data(), rows.data() + r * n, n);
      // rows_at scores the first four rows, handed over last first, to the bit as the block call did.
      const float* at[4] = {rows.data() + 3 * n, rows.data() + 2 * n, rows.data() + n, rows.data()};
      float dots_at[4], l2s_at[4];
      k->dot_rows_at(a.data(), at, n, 4, dots_at);
      k->l2sq_rows_at(a.data(), at, n, 4, l2s_at);
      for (size_t r = 0; r < 4; ++r) ok = ok && dots_at[3 - r] == dots[r] && l2s_at[3 - r] == l2s[r];
      Record(ok, k->name, "f32", n, trial);
    }
  }
}

int64_t ReferenceDotI8(const int8_t* a, const int8_t* b, size_t n) {
  int64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += int64_t(a[i]) * b[i];
  return s;
}

// Codes for a trial: uniform in [-127, 127], or the extremes the saturation argument is about
// (every code ±127, so each vpmaddubsw pair is ±32258).
int8_t Code(int trial, std::uniform_int_distribution<int>& uni) {
  switch (trial % 4) {
    case 0: return 127;
    case 1: return -127;
    case 2: return uni(rng) < 0 ? -127 : 127;
    default: return int8_t(uni(rng));
  }
}

// Vectors start at odd offsets of a buffer whose bytes past the end hold -128, so a kernel that
// reads past n (or assumes alignment) shows up as a wrong score.
void CheckInt8(const tessera::Kernels* k) {
  std::uniform_int_distribution<int> uni(-127, 127);
  const size_t dims[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 96, 127, 128, 129, 255, 256, 384, 768, 1023, 1024};
  const size_t kRows = 9;
  for (size_t n : dims) {
    for (int trial = 0; trial < 12; ++trial) {
      size_t offset = trial % 3;
      std::vector<int8_t> qbuf(offset + n + 64, -128), rbuf(offset + n * kRows + 64, -128);
      int8_t *q = qbuf.data() + offset, *rows = rbuf.data() + offset;
      for (size_t i = 0; i < n; ++i) q[i] = Code(trial, uni);
      // Row 0 repeats trial's extreme pattern; the others mix extremes and uniform codes.
      for (size_t i = 0; i < n * kRows; ++i) rows[i] = Code(i < n ? trial : trial / 4 + int(i % 3) * 4 + 3, uni);
      std::vector<int32_t> scores(kRows + 1, 0x5a5a5a5a);
      k->dot_i8_rows(q, rows, n, kRows, scores.data());
      bool ok = scores[kRows] == 0x5a5a5a5a;
      for (size_t r = 0; r < kRows; ++r) {
        int64_t want = ReferenceDotI8(q, rows + r * n, n);
        ok = ok && k->dot_i8(q, rows + r * n, n) == want && scores[r] == want;
      }
      // Fewer rows than a multi-row kernel's block takes the remainder path alone.
      for (size_t count : {1, 3, 4, 5}) {
        k->dot_i8_rows(q, rows, n, count, scores.data());
        for (size_t r = 0; r < count; ++r) ok = ok && scores[r] == ReferenceDotI8(q, rows + r * n, n);
      }
      Record(ok, k->name, "dot_i8", n, trial);
    }
  }
}

int64_t ReferenceL2sqU7(const int8_t* a, const int8_t* b, size_t n) {
  int64_t s = 0;
  for (size_t i = 0; i < n; ++i) s += int64_t(a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

// Grid codes in [0, 127]: uniform, or the extremes (0 against 127, every |a - b| at its largest);
// bytes past n hold 127 and -128, so a kernel reading past the end scores wrong.
void CheckL2sqU7(const tessera::Kernels* k) {
  std::uniform_int_distribution<int> uni(0, 127);
  const size_t dims[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 384, 784, 1023, 1024};
  for (size_t n : dims) {
    for (int trial = 0; trial < 8; ++trial) {
      size_t offset = trial % 3;
      std::vector<int8_t> abuf(offset + n + 64, 127), bbuf(offset + n + 64, -128);
      int8_t *a = abuf.data() + offset, *b = bbuf.data() + offset;
      for (size_t i = 0; i < n; ++i) {
        a[i] = int8_t(trial % 2 == 0 ? uni(rng) : 127);
        b[i] = int8_t(trial % 2 == 0 ? uni(rng) : 0);
      }
      Record(k->l2sq_u7(a, b, n) == ReferenceL2sqU7(a, b, n) && k->l2sq_u7(b, a, n) == ReferenceL2sqU7(a, b, n), k->name, "l2sq_u7", n,
             trial);
    }
  }
}

// Words 0 to 40 with random bits, all ones, or sparse bits; the words past the end are all ones.
void CheckBits(const tessera::Kernels* k) {
  std::mt19937_64 bits(7);
  const size_t kRows = 9;
  for (size_t words = 0; words <= 40; ++words) {
    for (int trial = 0; trial < 6; ++trial) {
      auto word = [&] { return trial % 3 == 0 ? ~uint64_t{0} : trial % 3 == 1 ? bits() : bits() & bits() & bits(); };
      std::vector<uint64_t> qbuf(words + 8, ~uint64_t{0}), rows(words * kRows + 8, ~uint64_t{0});
      uint64_t* q = qbuf.data();
      for (size_t i = 0; i < words; ++i) q[i] = word();
      for (size_t i = 0; i < words * kRows; ++i) rows[i] = i < words && trial % 2 ? ~q[i] : bits();
      std::vector<uint32_t> xors(kRows + 1, 0x5a5a5a5a), ands(kRows + 1, 0x5a5a5a5a);
      k->hamming_rows(q, rows.data(), words, kRows, xors.data());
      k->and_popcount_rows(q, rows.data(), words, kRows, ands.data());
      bool ok = xors[kRows] == 0x5a5a5a5a && ands[kRows] == 0x5a5a5a5a;
      for (size_t r = 0; r < kRows; ++r) {
        const uint64_t* row = rows.data() + r * words;
        int64_t want_xor = 0, want_and = 0;
        for (size_t i = 0; i < words; ++i) {
          want_xor += std::popcount(q[i] ^ row[i]);
          want_and += std::popcount(q[i] & row[i]);
        }
        ok = ok && k->hamming(q, row, words) == want_xor && xors[r] == want_xor;
        ok = ok && k->and_popcount(q, row, words) == want_and && ands[r] == want_and;
      }
      Record(ok, k->name, "popcount", words, trial);
    }
  }
}

}  // namespace

int main() {
  for (const tessera::Kernels* k : tessera::SupportedKernels()) {
    CheckF32(k);
    CheckInt8(k);
    CheckL2sqU7(k);
    CheckBits(k);
    std::printf("family %s checked\n", k->name);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
