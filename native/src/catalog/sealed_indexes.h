// What a store derives from a sealed segment's rows under its collection's declarations, besides
// vector indexes (index/ann_index.h): the full-text postings (fts-schema), the filter indexes
// (filter-index) and the id index, kept beside the segment as seg-N.text, seg-N.filter and
// seg-N.ids (index/derived_file.h). Opening a store, and anything that writes a new sealed
// segment (a merge), gives the segment its parts through OpenSealedSegmentIndexes; the writer
// saves parts it built in memory at a seal or after a declaration changed through
// SaveSealedSegmentIndexes, off the write path.
#pragma once
#include <cstddef>
#include <string>

#include "catalog/collection_schema.h"
#include "index/segment_indexes.h"
#include "storage/segment.h"

namespace tessera {

// The flat scan with the parts schema asks for: each opened in place from its file in dir when
// one matches (same format, rows and declaration, intact), built from the segment's rows
// otherwise and then, when may_write, saved (only the writer process may). dir empty: built.
SegmentIndexesPtr OpenSealedSegmentIndexes(const std::string& dir, const Segment& segment, const CollectionSchema& schema, bool may_write);

// Saves each part of indexes (segment's, derived under schema) that has no file in dir of the
// same format, rows and declaration yet (judged by the headers: a damaged body is found when the
// store next opens); returns how many it wrote. Throws Error(500) on an IO fault.
size_t SaveSealedSegmentIndexes(const std::string& dir, const Segment& segment, const CollectionSchema& schema,
                                const SegmentIndexes& indexes);

}  // namespace tessera
