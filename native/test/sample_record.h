// The record the filter self-test and the filter fuzz target match against: every Value type, the
// edges of Int, NaN, Unicode, an empty List and a sentence of text.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "util/value.h"

namespace tessera::test {

inline std::string SampleRecord() {
  AttrEncoder e;
  e.AddStr("s", "red");
  e.AddInt("n", 5);
  e.AddFloat("f", 1.5);
  e.AddBool("b", true);
  e.AddDateTime("d", 1700000000000);
  e.AddNull("z");
  e.AddList("tags", {"a", "b c", "Run"});
  e.AddStr("t", "The quick brown Fox runs, jumping-over 42 dogs");
  e.AddInt("big", std::numeric_limits<int64_t>::max());
  e.AddInt("small", std::numeric_limits<int64_t>::min());
  e.AddFloat("one", 1.0);
  e.AddFloat("zero", 0.0);
  e.AddFloat("nan", std::nan(""));
  e.AddStr("u", "café Ünïcode");
  e.AddList("empty", {});
  return e.Finish();
}

}  // namespace tessera::test
