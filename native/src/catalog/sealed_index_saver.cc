#include "catalog/sealed_index_saver.h"

#include <cstdio>
#include <exception>

#include "catalog/sealed_indexes.h"

namespace tessera {
namespace {

bool Holds(const Snapshot& snap, const Segment* segment) {
  for (const auto& [name, c] : snap.collections)
    for (const SegmentRef& ref : c->segments)
      if (ref.segment.get() == segment) return true;
  return false;
}

}  // namespace

void SealedIndexSaver::SaveLater() {
  if (queued_.exchange(true)) return;
  worker_.Post([this] {
    queued_ = false;  // a request from now on needs a pass that sees a later snapshot
    SaveNow();
  });
}

void SealedIndexSaver::SaveNow() {
  SnapshotPtr snap = current_();
  bool saved_for_retired = false;
  for (const auto& [name, c] : snap->collections) {
    for (const SegmentRef& ref : c->segments) {
      if (!ref.segment->sealed()) continue;
      try {
        // A compaction that replaced the segment meanwhile may have swept the directory before
        // these were written (it marks the segment retired before it lists the files, so one of
        // the two sees these): the writer sweeps again. Not removed here: with history on, a
        // past version still names the segment and its files.
        if (SaveSealedSegmentIndexes(dir_, *ref.segment, *c->schema, *ref.indexes) > 0 && retired_(ref.segment->id()))
          saved_for_retired = true;
      } catch (const std::exception& e) {
        // A compaction that replaced the segment meanwhile removed its files: nothing was lost.
        if (!Holds(*current_(), ref.segment.get())) continue;
        // Serving goes on from memory; the next open rebuilds what is missing.
        std::fprintf(stderr, "tessera: saving the derived files of segment %llu failed: %s\n", (unsigned long long)ref.segment->id(),
                     e.what());
      }
    }
  }
  if (saved_for_retired) sweep_();
}

}  // namespace tessera
