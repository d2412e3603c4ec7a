// The inverted lists of one sealed segment (IVF-Flat): k-means centroids over its f32 rows, and
// per centroid the rows nearest it. Lists hold row numbers only; a query scores the segment's own
// rows, so nothing is quantized and nothing is copied. Rows without a vector are in no list.
//
// n_lists 0 (auto) is round(sqrt(rows with a vector)), clamped to [1, 65536]; any n_lists is capped
// at the rows with a vector. sqrt balances the two halves of a query, n_lists centroid scores and
// n_probe lists of about sqrt(rows) rows each, so the default n_probe 8 scores about 8 / sqrt(rows)
// of the rows: 6% of 20000, 3% of 65536 (the largest a segment grows, 256 lists).
//
// The lists live in one block laid out exactly as their file, so built lists are saved with one
// write and saved ones are used straight from an mmap of the file, never rebuilt:
//   header | centroids (n_lists x dim f32) | list offsets (n_lists + 1, u32) | row numbers (u32,
//   list after list, ascending within a list), sections 64-byte aligned
// Bytes per row: 4 (its row number) plus its share of the centroids, 4 x dim x n_lists / rows
// (4 x dim / sqrt(rows) under the auto rule: 12 bytes at dim 768 and 65536 rows).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/segment.h"
#include "tessera/cancel.h"
#include "tessera/options.h"
#include "util/file_util.h"
#include "util/thread_pool.h"

namespace tessera {

struct IvfParams {
  uint32_t n_lists = 0;  // 0: auto
  uint64_t seed = 0;
};

// A list's rows.
struct IvfList {
  const uint32_t* begin;
  const uint32_t* end;
  size_t size() const { return size_t(end - begin); }
};

class IvfLists {
 public:
  // The lists a segment with `indexed` rows holding a vector gets (see above).
  static uint32_t ListsFor(uint32_t requested, uint32_t indexed);

  // Clusters the rows of segment that have a vector, on pool's threads (and the caller's). Throws
  // Error(kCancelled) once stop is cancelled.
  static std::shared_ptr<const IvfLists> Build(const Segment& segment, Metric metric, const IvfParams& params, ThreadPool& pool,
                                               const CancelToken& stop);
  // The lists saved at path, or nullptr when there are none, the file is damaged, or they were
  // built over another row count, dimension, metric or parameters (the caller builds new ones).
  // pool, where given, shares the checksum.
  static std::shared_ptr<const IvfLists> Open(const std::string& path, const Segment& segment, Metric metric, const IvfParams& params,
                                              bool mmap, ThreadPool* pool = nullptr);
  // Writes the lists durably (temporary file, fsync, rename).
  void Save(const std::string& path) const;

  // Every list, the one whose centroid the query scores best first: smallest squared L2 under
  // Euclidean, largest dot product otherwise (Cosine centroids are unit length, so that is the
  // L2 order too).
  std::vector<uint32_t> ProbeOrder(const float* query) const;
  IvfList list(uint32_t l) const { return {rows_ + offsets_[l], rows_ + offsets_[l + 1]}; }

  uint32_t n_lists() const;
  uint32_t indexed() const;  // rows in some list
  size_t bytes() const { return block_.size(); }

  struct Header;

 private:
  IvfLists() = default;
  // Points the section pointers into block_.
  void Bind();

  Region block_;
  const Header* header_ = nullptr;
  const float* centroids_ = nullptr;
  const uint32_t* offsets_ = nullptr;
  const uint32_t* rows_ = nullptr;
};

}  // namespace tessera
