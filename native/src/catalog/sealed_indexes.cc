#include "catalog/sealed_indexes.h"

#include <cstdio>
#include <exception>

#include "storage/file_names.h"

namespace tessera {
namespace {

// Each part described once, for opening, building and saving alike.
struct TextPart {
  static bool Declared(const CollectionSchema& s) { return !s.fts.empty(); }
  static std::string Path(const std::string& dir, const Segment& seg) { return SegmentTextPath(dir, seg.id()); }
  static SegmentTextPtr Open(const std::string& path, const Segment& seg, const CollectionSchema& s) {
    return SegmentText::Open(path, seg, s.fts);
  }
  static SegmentTextPtr Build(const Segment& seg, const CollectionSchema& s) {
    return SegmentText::Extend(nullptr, seg, seg.appended(), s.fts);
  }
  static bool Saved(const std::string& path, const Segment& seg, const CollectionSchema& s) { return SegmentText::Saved(path, seg, s.fts); }
  static void Save(const SegmentText& p, const std::string& path, const Segment& seg, const CollectionSchema& s) {
    p.Save(path, seg, s.fts);
  }
  static const SegmentTextPtr& Of(const SegmentIndexes& i) { return i.text(); }
  static SegmentIndexesPtr With(const SegmentIndexes& i, SegmentTextPtr p) { return i.WithText(std::move(p)); }
};

struct FilterPart {
  static bool Declared(const CollectionSchema& s) { return !s.filter_index.empty(); }
  static std::string Path(const std::string& dir, const Segment& seg) { return SegmentFilterPath(dir, seg.id()); }
  static SegmentFilterIndexPtr Open(const std::string& path, const Segment& seg, const CollectionSchema& s) {
    return SegmentFilterIndex::Open(path, seg, s.filter_index);
  }
  static SegmentFilterIndexPtr Build(const Segment& seg, const CollectionSchema& s) {
    return SegmentFilterIndex::Build(seg, s.filter_index);
  }
  static bool Saved(const std::string& path, const Segment& seg, const CollectionSchema& s) {
    return SegmentFilterIndex::Saved(path, seg, s.filter_index);
  }
  static void Save(const SegmentFilterIndex& p, const std::string& path, const Segment& seg, const CollectionSchema& s) {
    p.Save(path, seg, s.filter_index);
  }
  static const SegmentFilterIndexPtr& Of(const SegmentIndexes& i) { return i.filter(); }
  static SegmentIndexesPtr With(const SegmentIndexes& i, SegmentFilterIndexPtr p) { return i.WithFilter(std::move(p)); }
};

struct IdsPart {
  static bool Declared(const CollectionSchema&) { return true; }
  static std::string Path(const std::string& dir, const Segment& seg) { return SegmentIdsPath(dir, seg.id()); }
  static IdIndexPtr Open(const std::string& path, const Segment& seg, const CollectionSchema&) { return IdIndex::Open(path, seg); }
  static IdIndexPtr Build(const Segment& seg, const CollectionSchema&) { return IdIndex::Build(seg); }
  static bool Saved(const std::string& path, const Segment& seg, const CollectionSchema&) { return IdIndex::Saved(path, seg); }
  static void Save(const IdIndex& p, const std::string& path, const Segment& seg, const CollectionSchema&) { p.Save(path, seg); }
  static const IdIndexPtr& Of(const SegmentIndexes& i) { return i.ids(); }
  static SegmentIndexesPtr With(const SegmentIndexes& i, IdIndexPtr p) { return i.WithIds(std::move(p)); }
};

template <typename Part>
SegmentIndexesPtr OpenOrBuild(const SegmentIndexesPtr& base, const std::string& dir, const Segment& seg, const CollectionSchema& schema,
                              bool may_write) {
  if (!Part::Declared(schema)) return base;
  const std::string path = dir.empty() ? "" : Part::Path(dir, seg);
  auto part = path.empty() ? nullptr : Part::Open(path, seg, schema);
  if (!part) {
    part = Part::Build(seg, schema);
    if (!path.empty() && may_write) {
      try {
        Part::Save(*part, path, seg, schema);
      } catch (const std::exception& e) {
        // The part serves from memory; the next open builds it again.
        std::fprintf(stderr, "tessera: saving %s failed: %s\n", path.c_str(), e.what());
      }
    }
  }
  return Part::With(*base, std::move(part));
}

template <typename Part>
size_t SaveIfMissing(const std::string& dir, const Segment& seg, const CollectionSchema& schema, const SegmentIndexes& indexes) {
  const auto& part = Part::Of(indexes);
  if (!part || !Part::Declared(schema)) return 0;
  const std::string path = Part::Path(dir, seg);
  if (Part::Saved(path, seg, schema)) return 0;
  Part::Save(*part, path, seg, schema);
  return 1;
}

}  // namespace

SegmentIndexesPtr OpenSealedSegmentIndexes(const std::string& dir, const Segment& segment, const CollectionSchema& schema, bool may_write) {
  SegmentIndexesPtr indexes = SegmentIndexes::Flat();
  indexes = OpenOrBuild<TextPart>(indexes, dir, segment, schema, may_write);
  indexes = OpenOrBuild<FilterPart>(indexes, dir, segment, schema, may_write);
  return OpenOrBuild<IdsPart>(indexes, dir, segment, schema, may_write);
}

size_t SaveSealedSegmentIndexes(const std::string& dir, const Segment& segment, const CollectionSchema& schema,
                                const SegmentIndexes& indexes) {
  return SaveIfMissing<TextPart>(dir, segment, schema, indexes) + SaveIfMissing<FilterPart>(dir, segment, schema, indexes) +
         SaveIfMissing<IdsPart>(dir, segment, schema, indexes);
}

}  // namespace tessera
