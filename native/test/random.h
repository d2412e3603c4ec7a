// The native self-tests' seeded randomness: integers, chances, picks and runs of words, and the
// JSON string literal the random filters quote their words with.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::test {

class Random {
 public:
  explicit Random(uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Int(0, int(v.size()) - 1)];
  }
  // lo to hi words, separated by separators.
  std::string Words(const std::vector<std::string>& words, const std::vector<std::string>& separators, int lo, int hi) {
    std::string out;
    int n = Int(lo, hi);
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += Pick(separators);
      out += Pick(words);
    }
    return out;
  }

 private:
  std::mt19937 rng_;
};

inline std::string Json(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace tessera::test
