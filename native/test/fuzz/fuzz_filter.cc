// Every input as a filter: compiled as a request's "filter" field, then, when it compiles, matched
// against the filter self-test's sample record (every Value type), one holding its keys with
// other types, and one with no attributes.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../sample_record.h"
#include "filter/filter.h"
#include "fuzz_contract.h"
#include "util/value.h"

using namespace tessera;

namespace {

std::vector<std::string> Records() {
  AttrEncoder other;  // the sample's keys with other types, so every predicate meets a mismatch
  other.AddInt("s", -1);
  other.AddStr("n", "5");
  other.AddList("f", {});
  other.AddStr("tags", "a");
  other.AddFloat("t", -std::numeric_limits<double>::infinity());
  other.AddStr("u", "\u212A\u017F stra\u00DFe " + std::string(300, 'x'));
  return {test::SampleRecord(), other.Finish(), AttrEncoder().Finish()};
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
