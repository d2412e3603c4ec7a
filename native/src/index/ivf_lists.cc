#include "index/ivf_lists.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "index/kmeans.h"
#include "tessera/kernels.h"
#include "util/crc32c.h"

namespace tessera {

struct IvfLists::Header {
  uint64_t magic;
  uint32_t version;  // of the build: files of another version are rebuilt, never read
  uint32_t metric;
  uint32_t rows;
  uint32_t dim;
  uint32_t n_lists;
  uint32_t indexed;
  uint64_t seed;
  uint64_t block_bytes;
  uint32_t body_crc;  // of the sections after the header
  uint32_t crc;       // of the header bytes before it
};

namespace {

constexpr uint64_t kMagic = 0x4656495F53534554;  // "TESS_IVF"
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxLists = 65536;
static_assert(sizeof(IvfLists::Header) == 56, "the file layout");

struct Layout {
  size_t centroids, offsets, rows, total;
};

size_t Align(size_t x) { return (x + 63) & ~size_t(63); }

Layout LayoutOf(uint32_t dim, uint32_t n_lists, uint32_t indexed) {
  Layout l;
  l.centroids = Align(sizeof(IvfLists::Header));
  l.offsets = Align(l.centroids + sizeof(float) * size_t(n_lists) * dim);
  l.rows = Align(l.offsets + sizeof(uint32_t) * (size_t(n_lists) + 1));
  l.total = l.rows + sizeof(uint32_t) * size_t(indexed);
  return l;
}

uint32_t HeaderCrc(const IvfLists::Header& h) { return Crc32c(&h, offsetof(IvfLists::Header, crc)); }
uint32_t BodyCrc(const Region& block, ThreadPool* pool = nullptr) {
  size_t start = Align(sizeof(IvfLists::Header));
  return ParallelCrc32c(static_cast<const uint8_t*>(block.data()) + start, block.size() - start, pool);
}

std::vector<uint32_t> RowsWithVectors(const Segment& segment) {
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < segment.appended(); ++r)
    if (segment.has_vector(r)) rows.push_back(r);
  return rows;
}

}  // namespace

uint32_t IvfLists::ListsFor(uint32_t requested, uint32_t indexed) {
  uint32_t lists = requested != 0 ? requested : std::clamp<uint32_t>(uint32_t(std::lround(std::sqrt(double(indexed)))), 1, kMaxLists);
  return std::min(lists, indexed);
}

std::shared_ptr<const IvfLists> IvfLists::Build(const Segment& segment, Metric metric, const IvfParams& params, ThreadPool& pool,
                                                const CancelToken& stop) {
  uint32_t dim = segment.dim();
  std::vector<uint32_t> present = RowsWithVectors(segment);
  uint32_t n_lists = ListsFor(params.n_lists, uint32_t(present.size()));
  std::vector<float> centroids;
  std::vector<uint32_t> assigned;
  if (n_lists > 0) {
    PointSet points{segment.vectors(), dim, present};
    centroids = TrainKMeans(points, KMeansParams{.k = n_lists, .seed = params.seed, .spherical = metric == Metric::kCosine}, pool, stop);
    assigned = AssignNearest(points, centroids.data(), n_lists, pool, stop);
  }

  Layout layout = LayoutOf(dim, n_lists, uint32_t(present.size()));
  auto lists = std::shared_ptr<IvfLists>(new IvfLists());
  lists->block_ = Region::Anonymous(layout.total);
  auto* base = static_cast<uint8_t*>(lists->block_.data());
  std::memcpy(base + layout.centroids, centroids.data(), sizeof(float) * centroids.size());
  // A counting sort of the rows by list; present is ascending, so each list is too.
  auto* offsets = reinterpret_cast<uint32_t*>(base + layout.offsets);
  for (uint32_t l : assigned) ++offsets[l + 1];
  std::partial_sum(offsets, offsets + n_lists + 1, offsets);
  std::vector<uint32_t> fill(offsets, offsets + n_lists);
  auto* rows = reinterpret_cast<uint32_t*>(base + layout.rows);
  for (size_t i = 0; i < present.size(); ++i) rows[fill[assigned[i]]++] = present[i];

  auto* header = reinterpret_cast<Header*>(base);
  *header = Header{kMagic,
                   kVersion,
                   uint32_t(metric),
                   segment.appended(),
                   dim,
                   n_lists,
                   uint32_t(present.size()),
                   params.seed,
                   layout.total,
                   BodyCrc(lists->block_),
                   0};
  header->crc = HeaderCrc(*header);
  lists->Bind();
  return lists;
}

std::shared_ptr<const IvfLists> IvfLists::Open(const std::string& path, const Segment& segment, Metric metric, const IvfParams& params,
                                               bool mmap, ThreadPool* pool) {
  if (!FileExists(path)) return nullptr;
  auto lists = std::shared_ptr<IvfLists>(new IvfLists());
  lists->block_ = Region::OpenFile(path, mmap);
  if (lists->block_.size() < sizeof(Header)) return nullptr;
  const auto* h = static_cast<const Header*>(lists->block_.data());
  if (h->magic != kMagic || h->version != kVersion || h->crc != HeaderCrc(*h) || h->block_bytes != lists->block_.size()) return nullptr;
  uint32_t indexed = uint32_t(RowsWithVectors(segment).size());
  if (h->rows != segment.appended() || h->dim != segment.dim() || h->metric != uint32_t(metric) || h->seed != params.seed ||
      h->indexed != indexed || h->n_lists != ListsFor(params.n_lists, indexed))
    return nullptr;
  if (LayoutOf(h->dim, h->n_lists, h->indexed).total != h->block_bytes) return nullptr;
  lists->block_.ReadAhead();
  if (h->body_crc != BodyCrc(lists->block_, pool)) return nullptr;
  lists->Bind();
  return lists;
}

void IvfLists::Save(const std::string& path) const {
  WriteFileAtomic(path, std::string_view(static_cast<const char*>(block_.data()), block_.size()));
}

void IvfLists::Bind() {
  const auto* base = static_cast<const uint8_t*>(block_.data());
  header_ = reinterpret_cast<const Header*>(base);
  Layout layout = LayoutOf(header_->dim, header_->n_lists, header_->indexed);
  centroids_ = reinterpret_cast<const float*>(base + layout.centroids);
  offsets_ = reinterpret_cast<const uint32_t*>(base + layout.offsets);
  rows_ = reinterpret_cast<const uint32_t*>(base + layout.rows);
}

std::vector<uint32_t> IvfLists::ProbeOrder(const float* query) const {
  const Kernels& kernels = ActiveKernels();
  uint32_t n = header_->n_lists;
  bool euclidean = Metric(header_->metric) == Metric::kEuclidean;
  std::vector<float> scores(n);
  (euclidean ? kernels.l2sq_rows : kernels.dot_rows)(query, centroids_, header_->dim, n, scores.data());
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (scores[a] != scores[b]) return euclidean ? scores[a] < scores[b] : scores[a] > scores[b];
    return a < b;
  });
  return order;
}

uint32_t IvfLists::n_lists() const { return header_->n_lists; }
uint32_t IvfLists::indexed() const { return header_->indexed; }

}  // namespace tessera
