// The IVF vector index of one sealed segment: inverted lists over its f32 rows (index/ivf_lists),
// searched by scoring the centroids and then, exactly, the rows of the best lists.
//
// A query probes the n_probe lists whose centroids score best, then widens: it keeps probing the
// next best list while the rows admitted fall short of the rows those n_probe lists held, or of
// ef (max(ef_search, overscan x window), the candidates an HNSW walk keeps). Unfiltered, that is
// n_probe lists unless the window is deep; when deleted rows, a filter or min_score turn a fraction
// f of the rows away, it is about n_probe / f lists, so the admitted candidates, and with them the
// recall, stay those of an unfiltered probe. Widening stops once the rows scored reach the rows the
// exact scan would visit. Under the prefilter policy shared with HNSW (index/ann_search), a filter
// selective enough is answered by the exact scan before any probe, and a probe that stopped with
// fewer rows than the window, without having scored every list, by the scan after it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "index/ivf_lists.h"
#include "index/quantized_codes.h"
#include "index/vector_index.h"
#include "tessera/options.h"

namespace tessera {

struct AnnFound;
class CandidateAdmission;

class IvfIndex final : public VectorIndex {
 public:
  // The lists saved at path for segment, or nullptr when there are none usable (see IvfLists::Open).
  // codes: the segment's quantized codes when the store runs with quantization, else null; probed
  // rows are then ranked by their codes and the best window x rescore rescored exactly.
  static std::shared_ptr<const IvfIndex> Open(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                              QuantizedCodesPtr codes, bool mmap, ThreadPool* pool = nullptr);
  // Builds the lists of segment's rows (path empty: kept in memory only, else saved there first).
  static std::shared_ptr<const IvfIndex> Build(const std::string& path, const Segment& segment, Metric metric, const AnnConfig& config,
                                               QuantizedCodesPtr codes, ThreadPool& pool, const CancelToken& stop);

  void Search(const Segment& segment, const VectorQuery& query, const RowRange& rows, const RowFilter& admit, ScoreSink& sink,
              const CancelToken& cancel, SearchTrace& trace) const override;

  uint64_t BytesRead(const Segment& segment, uint32_t rows, const VectorQuery& query) const override;

  size_t bytes() const override { return lists_->bytes(); }
  uint32_t n_lists() const { return lists_->n_lists(); }

 private:
  IvfIndex(std::shared_ptr<const IvfLists> lists, Metric metric, uint32_t n_probe, QuantizedCodesPtr codes)
      : lists_(std::move(lists)), metric_(metric), n_probe_(n_probe), codes_(std::move(codes)) {}
  // The lists a query probes, best first, and the rows of the n_probe best: what an unfiltered
  // probe scores besides the centroids, known before the prefilter policy weighs the scan.
  struct ProbePlan {
    std::vector<uint32_t> order;
    size_t held = 0;
  };
  ProbePlan Plan(const float* query) const;
  // Scores the rows of the lists plan orders, widening as above, letting admission pick the
  // candidates; scan_rows: the rows the exact scan would visit instead.
  AnnFound Probe(const Segment& segment, const VectorQuery& query, const ProbePlan& plan, size_t scan_rows, CandidateAdmission& admission,
                 const CancelToken& cancel) const;

  std::shared_ptr<const IvfLists> lists_;
  Metric metric_;
  uint32_t n_probe_;
  QuantizedCodesPtr codes_;
};

}  // namespace tessera
