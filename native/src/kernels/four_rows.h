// The f32 distance loop over rows four at a time, shared by the SIMD families: one load of q feeds
// four rows' FMA chains, and each row costs one horizontal sum (a row at a time, the sum and the
// short chains cost as much as the FMAs at 128-d). Each row's arithmetic is exactly that of the
// family's one-row kernel (two chains: blocks of kWidth alternate between them, a last whole block
// goes to the first, the tail to the second, the sum is of their sum), so an exact scan and a
// rescore give a row the same score to the last bit. V describes one instruction set:
//   Reg, kWidth (floats per Reg), Zero(), Load(p), LoadTail(p, left) (left < kWidth, the rest 0),
//   Add(a, b), Sub(a, b), Fmadd(a, b, acc), Sum(v).
// Included only by the families' translation units, each compiled with its own target flags;
// everything here has internal linkage, so no family's code can stand in for another's.
#pragma once
#include <cstddef>

namespace tessera {
namespace {

// Four rows' scores, each from the one-row kernel's two chains.
template <typename V, bool kL2>
void ScoreFour(const float* q, const float* const* row, size_t n, float* out) {
  using Reg = typename V::Reg;
  constexpr size_t W = V::kWidth;
  Reg s0[4] = {V::Zero(), V::Zero(), V::Zero(), V::Zero()};
  Reg s1[4] = {V::Zero(), V::Zero(), V::Zero(), V::Zero()};
  auto step = [&](Reg(&s)[4], Reg x, auto load) {
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
  auto whole = [](size_t at) { return [at](const float* p) { return V::Load(p + at); }; };
  size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    step(s0, V::Load(q + i), whole(i));
    step(s1, V::Load(q + i + W), whole(i + W));
  }
  if (i + W <= n) {
    step(s0, V::Load(q + i), whole(i));
    i += W;
  }
  if (i < n) step(s1, V::LoadTail(q + i, n - i), [i, left = n - i](const float* p) { return V::LoadTail(p + i, left); });
  for (int k = 0; k < 4; ++k) out[k] = V::Sum(V::Add(s0[k], s1[k]));
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
