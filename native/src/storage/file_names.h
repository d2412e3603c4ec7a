// Every file a store directory holds, named in one place:
//   HEADER               format, dimension and metric, written once
//   LOCK                 the writer lock; its text names the holder
//   wal.log              the write-ahead log since the last checkpoint
//   MANIFEST             sealed segments and catalog as of a commit version
//   seg-N.vec            segment N's vectors, one f32 row per record
//   seg-N.rows           segment N's ids, attributes and vector flags
//   seg-N.nvK            segment N's K-th named-vector column
//   seg-N.cols           segment N's attributes column by column (seg-N.cols.tmp while written)
//   seg-N.del.V          segment N's deletion bitmap as of commit version V
//   seg-N.hnsw           segment N's HNSW graph (seg-N.hnsw.tmp while it is being written)
//   seg-N.q8, seg-N.qb   segment N's Int8 or Binary quantized codes (.tmp likewise)
//   seg-N.ivf            segment N's IVF lists (seg-N.ivf.tmp while it is being written)
//   seg-N.text           segment N's full-text postings under the collection's fts-schema
//   seg-N.filter         segment N's filter indexes (tokens, trigrams) under its filter-index declaration
//   seg-N.ids            segment N's id index (rows by id)
//                        (the last three: .tmp likewise; each records the declaration it was built
//                        under and is rebuilt when that changes, see index/derived_file.h)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// A segment holds at most this many named-vector columns (seg-N.nv0 to seg-N.nv15).
constexpr size_t kMaxNamedVectors = 16;

std::string HeaderPath(const std::string& dir);
std::string LockPath(const std::string& dir);
std::string WalPath(const std::string& dir);
std::string ManifestPath(const std::string& dir);

std::string SegmentVectorsPath(const std::string& dir, uint64_t segment);
std::string SegmentRowsPath(const std::string& dir, uint64_t segment);
std::string SegmentNamedPath(const std::string& dir, uint64_t segment, size_t column);
std::string SegmentColumnsPath(const std::string& dir, uint64_t segment);
std::string SegmentHnswPath(const std::string& dir, uint64_t segment);
// suffix: "q8" (Int8) or "qb" (Binary).
std::string SegmentCodesPath(const std::string& dir, uint64_t segment, const char* suffix);
std::string SegmentIvfPath(const std::string& dir, uint64_t segment);
std::string SegmentTextPath(const std::string& dir, uint64_t segment);
std::string SegmentFilterPath(const std::string& dir, uint64_t segment);
std::string SegmentIdsPath(const std::string& dir, uint64_t segment);
// A file name (not a path): manifests refer to deletion bitmaps by name.
std::string DeletionsFileName(uint64_t segment, uint64_t version);

// Names of every file segment `segment` may have besides deletion bitmaps (its column file and index files included,
// and every one's temporary name: a build or a compaction may be writing one while a checkpoint
// cleans up).
std::vector<std::string> SegmentFileNames(uint64_t segment);
// Whether name is one of some segment's files (deletion bitmaps included).
bool IsSegmentFileName(const std::string& name);

}  // namespace tessera
