// A hierarchical navigable small-world graph (Malkov & Yashunin) over the rows of one sealed
// segment. Level 0 links every row that has a vector to up to 2M neighbours; each upper level
// links a geometric sample of those rows to up to M. Nodes are the segment's row numbers, so the
// graph needs no id map and reads its points through a VectorSpace.
//
// The graph lives in one block laid out exactly as its file, so a built graph is saved with one
// write and a saved one is used straight from an mmap of the file, never rebuilt:
//   header | level per row (u8, 0xFF = not in the graph) | upper-link offset per row (u32)
//          | level-0 links: per row [count, 2M slots] (u32) | upper links: per level [count, M]
// Bytes per row: 4 x (2M + 2) + 1, plus 4 x (M + 1) per upper level (1/M of rows reach level 1),
// so 137 bytes at M = 16 beside the vectors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/vector_space.h"
#include "tessera/cancel.h"
#include "util/file_util.h"
#include "util/thread_pool.h"

namespace tessera {

struct HnswParams {
  uint32_t m = 16;
  uint32_t ef_construction = 200;
  uint64_t seed = 0;
};

// Decides, for each row a query walk reaches, whether it may enter the results. The walk still
// passes through rows it refuses, so deleted or filtered-out rows keep the graph connected.
class WalkAdmission {
 public:
  virtual ~WalkAdmission() = default;
  virtual bool Admit(uint32_t row, float distance) = 0;
  // Whether the walk should stop where it is (it has cost more than the answer is worth).
  virtual bool Abandoned() const { return false; }
};

class HnswGraph;

// A graph over rows [first_row, first_row + graph->rows()) of a space being built: those are its
// rows 0, 1, ... in order (a merge's input that kept every row).
struct HnswGraphPart {
  const HnswGraph* graph = nullptr;
  uint32_t first_row = 0;
};

class HnswGraph {
 public:
  // Inserts every present row of space, on pool's threads (and the caller's). Throws
  // Error(kCancelled) once stop is cancelled. With reuse, the rows reuse covers keep its links
  // (and levels) and only the others are inserted; a reuse that does not fit (other parameters or
  // space kind, rows past the space's, vectors not where its nodes are) is ignored.
  static std::shared_ptr<const HnswGraph> Build(const VectorSpace& space, const HnswParams& params, ThreadPool& pool,
                                                const CancelToken& stop, HnswGraphPart reuse = {});
  // The graph saved at path, or nullptr when there is none, or it was built over another space,
  // row count or parameters (the caller builds a new one). pool, where given, shares the checksum.
  static std::shared_ptr<const HnswGraph> Open(const std::string& path, const VectorSpace& space, const HnswParams& params, bool mmap,
                                               ThreadPool* pool = nullptr);
  // Writes the graph durably (temporary file, fsync, rename).
  void Save(const std::string& path) const;

  // Up to ef rows closest to query that admit accepts, closest first. Walks until no unvisited
  // neighbour can beat the ef-th admitted row, so a walk whose admission refuses most rows visits
  // more of the graph rather than returning fewer rows.
  std::vector<Neighbor> Search(const VectorSpace& space, const void* query, uint32_t ef, WalkAdmission& admit,
                               const CancelToken& cancel) const;

  size_t bytes() const { return block_.size(); }
  uint32_t rows() const;
  uint32_t nodes() const;
  uint32_t m() const;
  // Rows whose links Build took from a reused graph (0 for a graph built whole or opened).
  uint32_t reused_rows() const { return reused_rows_; }

  struct Header;
  // The block's sections, as the walk reads them (writable only while a Builder fills them).
  struct Arrays {
    Header* header = nullptr;
    const uint8_t* levels = nullptr;
    const uint32_t* upper_offsets = nullptr;
    uint32_t* level0 = nullptr;
    uint32_t* upper = nullptr;
  };
  class Builder;

 private:
  HnswGraph() = default;
  // Points arrays_ into block_.
  void Bind();

  Region block_;
  Arrays arrays_;
  uint32_t reused_rows_ = 0;
};

}  // namespace tessera
