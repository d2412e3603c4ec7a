// The exact vector index: no structure at all, every row of the range scored with the SIMD
// kernels. Contiguous rows of the main vector are scored a block at a time.
#pragma once
#include "index/vector_index.h"

namespace tessera {

class FlatIndex final : public VectorIndex {
 public:
  // One instance serves every segment: it holds nothing.
  static VectorIndexPtr Shared();

  void Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
              const CancelToken& cancel, SearchTrace& trace) const override;
  uint64_t BytesRead(const Segment& segment, uint32_t rows, const VectorQuery& query) const override;
  size_t bytes() const override { return 0; }
};

}  // namespace tessera
