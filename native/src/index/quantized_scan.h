// The quantized exact path (plan path `quantized`): every row of the range ranked by its code's
// estimated distance, the best window x rescore of those the filter admits rescored exactly.
#pragma once
#include "index/f32_space.h"
#include "index/quantized_codes.h"
#include "index/vector_index.h"
#include "index/vector_space.h"

namespace tessera {

class QuantizedScan final : public VectorIndex {
 public:
  explicit QuantizedScan(QuantizedCodesPtr codes) : codes_(std::move(codes)) {}

  void Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
              const CancelToken& cancel, SearchTrace& trace) const override;
  uint64_t BytesRead(const Segment& segment, uint32_t rows, const VectorQuery& query) const override;
  size_t bytes() const override { return codes_->bytes(); }

  const QuantizedCodesPtr& codes() const { return codes_; }

 private:
  QuantizedCodesPtr codes_;
};

// A segment's codes as a graph sees them: query distances from prepared codes; Int8 rows also
// give row-to-row distances (a graph built over codes), Binary rows fall back to the f32 rows.
class QuantizedSpace final : public VectorSpace {
 public:
  QuantizedSpace(const QuantizedCodes& codes, const Segment& segment, Metric metric)
      : codes_(codes), rows_(segment, metric), euclidean_(metric == Metric::kEuclidean) {}

  void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const override {
    codes_.Distances(*static_cast<const QuantizedQuery*>(query), rows, n, out);
  }
  void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const override;
  bool Present(uint32_t row) const override { return rows_.Present(row); }
  uint32_t rows() const override { return rows_.rows(); }
  uint32_t kind() const override;

 private:
  const QuantizedCodes& codes_;
  F32Space rows_;
  bool euclidean_;
};

}  // namespace tessera
