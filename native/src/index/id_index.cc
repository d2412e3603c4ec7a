#include "index/id_index.h"

#include <bit>
#include <vector>

#include "index/derived_file.h"
#include "util/id_hash.h"

namespace tessera {
namespace {

constexpr DerivedFileKind kIdFile{0x58444e4944495354, 1};  // "TSIDINDX"

size_t SlotsFor(uint32_t rows) { return std::bit_ceil(std::max<size_t>(2, 2 * size_t(rows))); }

}  // namespace

size_t IdIndex::Slot(std::string_view id, size_t mask) { return size_t(IdHash(id)) & mask; }

IdIndexPtr IdIndex::Build(const Segment& segment) {
  const uint32_t rows = segment.appended();
  std::vector<uint32_t> slots(SlotsFor(rows), 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t r = 0; r < rows; ++r) {
    size_t s = Slot(segment.row_id(r), mask);
    while (slots[s] != 0) s = (s + 1) & mask;
    slots[s] = r + 1;
  }
  segment.ReleaseRecordPages();  // the pass read every id
  auto index = std::make_shared<IdIndex>();
  index->slots_ = std::move(slots);
  return index;
}

IdIndexPtr IdIndex::Open(const std::string& path, const Segment& segment) {
  std::optional<BlockReader> body = OpenDerivedFile(path, kIdFile, segment.appended(), "");
  if (!body) return nullptr;
  auto index = std::make_shared<IdIndex>();
  try {
    (*body)(index->slots_);
  } catch (const Error&) {
    return nullptr;  // a layout that runs past the file: rebuilt like a damaged one
  }
  if (!body->done() || index->slots_.size() != SlotsFor(segment.appended())) return nullptr;
  return index;
}

bool IdIndex::Saved(const std::string& path, const Segment& segment) { return DerivedFileMatches(path, kIdFile, segment.appended(), ""); }

void IdIndex::Save(const std::string& path, const Segment& segment) const {
  DerivedFileWriter file(kIdFile, segment.appended(), "");
  file.body()(slots_);
  file.Save(path);
}

}  // namespace tessera
