// The f32 distance loop over rows four at a time, shared by the SIMD families: one load of q feeds
// four independent FMA chains, and each row costs one horizontal sum (a row at a time, the sum and
// the short chains cost as much as the FMAs at 128-d). V describes one instruction set:
//   Reg, kWidth (floats per Reg), Zero(), Load(p), LoadTail(p, left) (left < kWidth, the rest 0),
//   Sub(a, b), Fmadd(a, b, acc), Sum(v).
// Included only by the families' translation units, each compiled with its own target flags;
// everything here has internal linkage, so no family's code can stand in for another's.
#pragma once
#include <cstddef>

namespace tessera {
namespace {

// Four rows' scores, each from one FMA chain over q in order.
template <typename V, bool kL2>
void ScoreFour(const float* q, const float* const* row, size_t n, float* out) {
  using Reg = typename V::Reg;
  Reg s[4] = {V::Zero(), V::Zero(), V::Zero(), V::Zero()};
  auto step = [&](Reg x, auto load) {
    for (int k = 0; k < 4; ++k) {
      Reg v = load(row[k]);
      if constexpr (kL2) {
        v = V::Sub(x, v);
        s[k] = V::Fmadd(v, v, s[k]);
      } else {
        s[k] = V::Fmadd(x, v, s[k]);
      }
    }
  };
  size_t i = 0;
  for (; i + V::kWidth <= n; i += V::kWidth) step(V::Load(q + i), [i](const float* p) { return V::Load(p + i); });
  if (i < n) step(V::LoadTail(q + i, n - i), [i, left = n - i](const float* p) { return V::LoadTail(p + i, left); });
  for (int k = 0; k < 4; ++k) out[k] = V::Sum(s[k]);
}

template <typename V, bool kL2, float (*One)(const float*, const float*, size_t)>
void FourRows(const float* q, const float* rows, size_t n, size_t count, float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const float* row[4] = {rows + r * n, rows + (r + 1) * n, rows + (r + 2) * n, rows + (r + 3) * n};
    ScoreFour<V, kL2>(q, row, n, out + r);
  }
  for (; r < count; ++r) out[r] = One(q, rows + r * n, n);
}

// FourRows' scores for rows anywhere; a count short of a multiple of four ends with One.
template <typename V, bool kL2, float (*One)(const float*, const float*, size_t)>
void FourRowsAt(const float* q, const float* const* rows, size_t n, size_t count, float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) ScoreFour<V, kL2>(q, rows + r, n, out + r);
  for (; r < count; ++r) out[r] = One(q, rows[r], n);
}

}  // namespace
}  // namespace tessera
