// Every input as a filter: compiled as a request's "filter" field, then, when it compiles, matched
// against records holding every Value type (edge numbers, NaN, Unicode, Lists, long text) and none.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "filter/filter.h"
#include "fuzz_contract.h"
#include "util/value.h"

using namespace tessera;

namespace {

std::vector<std::string> Records() {
  AttrEncoder every;
  every.AddStr("s", "red");
  every.AddInt("n", 5);
  every.AddFloat("f", 1.5);
  every.AddBool("b", true);
  every.AddDateTime("d", 1700000000000);
  every.AddNull("z");
  every.AddList("tags", {"a", "b c", "Run", ""});
  every.AddStr("t", "The quick brown Fox runs, jumping-over 42 dogs");
  every.AddStr("u", "café Ünïcode \u212A\u017F straße");
  every.AddInt("big", std::numeric_limits<int64_t>::max());
  every.AddInt("small", std::numeric_limits<int64_t>::min());
  every.AddFloat("nan", std::nan(""));
  every.AddFloat("inf", -std::numeric_limits<double>::infinity());
  AttrEncoder other;  // the same keys with other types, so every predicate meets a mismatch
  other.AddInt("s", -1);
  other.AddStr("n", "5");
  other.AddList("f", {});
  other.AddStr("tags", "a");
  other.AddFloat("t", -0.0);
  other.AddStr("x", std::string(300, 'x'));
  return {every.Finish(), other.Finish(), AttrEncoder().Finish()};
}

const std::vector<std::string> kRecords = Records();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<Filter> filter;
  fuzz::ParsesOrRefuses("Filter::CompileText", [&] { filter = Filter::CompileText(fuzz::Body(data, size), "filter"); });
  // Matching never throws: an exception escaping here terminates, which libFuzzer reports.
  if (filter)
    for (const std::string& record : kRecords) filter->Matches(record);
  return 0;
}
