#include "tessera/filter_index.h"

namespace tessera {
namespace {

// Placeholder until the token and trigram structures land: it narrows nothing, so every query
// scans all rows (results are identical; only speed differs).
class NoNarrowing : public SegmentFilterIndex {
 public:
  std::optional<std::vector<uint32_t>> Narrow(const Filter&) const override { return std::nullopt; }
  size_t bytes() const override { return 0; }
};

}  // namespace

std::shared_ptr<const SegmentFilterIndex> SegmentFilterIndex::Build(const Segment&, const std::vector<FilterIndexField>&) {
  return std::make_shared<NoNarrowing>();
}

}  // namespace tessera
