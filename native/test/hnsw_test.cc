// Checks the HNSW graph against brute force on seeded data: recall@10 of a built graph, the same
// answers from its saved file, admission (refused rows never returned, the walk still finds
// admitted ones), rows without vectors left out, and a build that takes over a graph of some of
// its rows (a merge's input) as good as a whole one. Prints "N passed, M failed".
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "index/hnsw_graph.h"
#include "util/file_util.h"

namespace tessera {
namespace {

using test::Check;

// Clustered points, as real embeddings are: uniform noise has no neighbours worth finding.
class TestSpace final : public VectorSpace {
 public:
  TestSpace(uint32_t rows, uint32_t dim, uint32_t seed) : dim_(dim), data_(size_t(rows) * dim), present_(rows, true) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0, 0.3f);
    std::vector<float> centers(32 * dim);
    for (float& c : centers) c = noise(rng) * 4;
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t d = 0; d < dim; ++d) data_[size_t(r) * dim + d] = centers[(r % 32) * dim + d] + noise(rng);
    for (uint32_t r = 7; r < rows; r += 97) present_[r] = false;
  }
  void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const override {
    const float* q = static_cast<const float*>(query);
    for (size_t i = 0; i < n; ++i) {
      const float* v = Row(rows[i]);
      float sum = 0;
      for (uint32_t d = 0; d < dim_; ++d) sum += (q[d] - v[d]) * (q[d] - v[d]);
      out[i] = sum;
    }
  }
  void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const override { Distances(Row(from), rows, n, out); }
  const float* Row(uint32_t row) const { return &data_[size_t(row) * dim_]; }
  bool Present(uint32_t row) const override { return present_[row]; }
  uint32_t rows() const override { return uint32_t(present_.size()); }
  uint32_t kind() const override { return 99; }

 private:
  uint32_t dim_;
  std::vector<float> data_;
  std::vector<bool> present_;
};

// Rows [first, first + n) of a space as a space of their own (a merge input's rows).
class RowsOf final : public VectorSpace {
 public:
  RowsOf(const TestSpace& all, uint32_t first, uint32_t n) : all_(all), first_(first), n_(n) {}
  void Distances(const void* query, const uint32_t* rows, size_t n, float* out) const override {
    std::vector<uint32_t> moved(rows, rows + n);
    for (uint32_t& r : moved) r += first_;
    all_.Distances(query, moved.data(), n, out);
  }
  void DistancesFromRow(uint32_t from, const uint32_t* rows, size_t n, float* out) const override {
    Distances(all_.Row(first_ + from), rows, n, out);
  }
  bool Present(uint32_t row) const override { return all_.Present(first_ + row); }
  uint32_t rows() const override { return n_; }
  uint32_t kind() const override { return all_.kind(); }

 private:
  const TestSpace& all_;
  uint32_t first_, n_;
};

template <typename Predicate>
class LambdaAdmission final : public WalkAdmission {
 public:
  explicit LambdaAdmission(Predicate admit) : admit_(admit) {}
  bool Admit(uint32_t row, float) override { return admit_(row); }

 private:
  Predicate admit_;
};

template <typename Admit>
std::vector<uint32_t> BruteForce(const TestSpace& space, const void* q, size_t k, Admit admit) {
  std::vector<Neighbor> all;
  for (uint32_t r = 0; r < space.rows(); ++r)
    if (space.Present(r) && admit(r)) all.push_back({space.Distance(q, r), r});
  std::sort(all.begin(), all.end(), [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance; });
  std::vector<uint32_t> out;
  for (size_t i = 0; i < std::min(k, all.size()); ++i) out.push_back(all[i].row);
  return out;
}

// recall@10 over queries taken from the data with noise added.
template <typename Admit>
double Recall(const HnswGraph& graph, const TestSpace& space, uint32_t ef, Admit admit, bool* only_admitted) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0, 0.1f);
  CancelToken never;
  size_t hits = 0, wanted = 0;
  for (uint32_t qi = 0; qi < 100; ++qi) {
    const float* base = space.Row(qi * 31 % space.rows());
    std::vector<float> q(base, base + 16);
    for (float& x : q) x += noise(rng);
    std::vector<uint32_t> truth = BruteForce(space, q.data(), 10, admit);
    LambdaAdmission<Admit> admission(admit);
    std::vector<Neighbor> found = graph.Search(space, q.data(), ef, admission, never);
    for (size_t i = 0; i < std::min<size_t>(10, found.size()); ++i) {
      if (std::find(truth.begin(), truth.end(), found[i].row) != truth.end()) ++hits;
      if (!admit(found[i].row) || !space.Present(found[i].row)) *only_admitted = false;
    }
    wanted += truth.size();
  }
  return double(hits) / double(std::max<size_t>(1, wanted));
}

void Run() {
  TestSpace space(20000, 16, 1);
  ThreadPool pool(2);
  CancelToken never;
  HnswParams params{16, 200, 42};
  std::shared_ptr<const HnswGraph> graph = HnswGraph::Build(space, params, pool, never);
  auto all = [](uint32_t) { return true; };
  bool only_admitted = true;
  double recall = Recall(*graph, space, 64, all, &only_admitted);
  std::printf("recall@10 ef=64: %.4f, graph bytes per row %.1f\n", recall, double(graph->bytes()) / space.rows());
  Check(recall >= 0.95, "recall@10 at ef 64 reaches 0.95, got " + std::to_string(recall));
  // At ef 1 the walk at level 0 keeps one row and stops at the first local minimum, so its answer
  // is only as good as the node the descent through the upper levels reached (93% here; 47% when
  // the descent stays at the entry point).
  double landed = 10 * Recall(*graph, space, 1, all, &only_admitted);
  Check(landed >= 0.8, "at ef 1 the one row returned is among the 10 nearest for 80% of queries, got " + std::to_string(landed));
  Check(only_admitted, "rows without vectors are never returned");
  Check(graph->nodes() == space.rows() - (space.rows() - 7 + 96) / 97, "every row with a vector is a node");

  auto even = [](uint32_t r) { return r % 2 == 0; };
  only_admitted = true;
  double filtered = Recall(*graph, space, 64, even, &only_admitted);
  Check(only_admitted, "refused rows are never returned");
  Check(filtered >= 0.95, "a walk admitting half the rows keeps recall, got " + std::to_string(filtered));

  auto rare = [](uint32_t r) { return r % 1000 == 3; };
  only_admitted = true;
  double starved = Recall(*graph, space, 64, rare, &only_admitted);
  Check(only_admitted && starved >= 0.9, "a walk admitting 0.1% of rows still finds them, got " + std::to_string(starved));

  std::string dir = "/tmp/tessera-hnsw-test-" + std::to_string(::getpid());
  MakeDirs(dir);
  graph->Save(dir + "/g.hnsw");
  for (bool mmap : {true, false}) {
    std::shared_ptr<const HnswGraph> opened = HnswGraph::Open(dir + "/g.hnsw", space, params, mmap);
    Check(opened != nullptr, "a saved graph opens");
    if (!opened) continue;
    only_admitted = true;
    Check(Recall(*opened, space, 64, all, &only_admitted) == recall, "the opened graph answers as the built one");
  }
  Check(HnswGraph::Open(dir + "/g.hnsw", space, HnswParams{32, 200, 42}, true) == nullptr, "a graph built with another m is not reused");
  Check(HnswGraph::Open(dir + "/missing.hnsw", space, params, true) == nullptr, "no file, no graph");
  WriteFileAtomic(dir + "/torn.hnsw", "TSHNSW01 but not a graph");
  Check(HnswGraph::Open(dir + "/torn.hnsw", space, params, true) == nullptr, "a damaged file is not used");
  std::string bytes = ReadWholeFile(dir + "/g.hnsw");
  bytes[bytes.size() / 2] ^= 0x40;
  WriteFileAtomic(dir + "/flipped.hnsw", bytes);
  Check(HnswGraph::Open(dir + "/flipped.hnsw", space, params, true) == nullptr,
        "a flipped bit in the links is caught: the graph is rebuilt");
  for (const std::string& f : ListDir(dir)) RemoveFile(dir + "/" + f);

  // A merge whose input kept every row takes over that input's graph, wherever its rows land.
  for (uint32_t first_row : {0u, 5000u}) {
    RowsOf input(space, first_row, 12000);
    std::shared_ptr<const HnswGraph> part = HnswGraph::Build(input, params, pool, never);
    std::shared_ptr<const HnswGraph> merged = HnswGraph::Build(space, params, pool, never, {part.get(), first_row});
    std::string at = " (rows from " + std::to_string(first_row) + ")";
    Check(merged->reused_rows() == 12000, "a fitting graph is taken over" + at + ", got " + std::to_string(merged->reused_rows()));
    Check(merged->nodes() == graph->nodes(), "the merged graph holds every row with a vector" + at);
    only_admitted = true;
    double merged_recall = Recall(*merged, space, 64, all, &only_admitted);
    std::printf("recall@10 ef=64 taking over 12,000 rows from row %u: %.4f (whole build %.4f)\n", first_row, merged_recall, recall);
    Check(only_admitted && merged_recall >= recall - 0.01,
          "a graph that took over a part recalls as well as one built whole" + at + ", got " + std::to_string(merged_recall));
  }
  RowsOf input(space, 0, 12000);
  for (HnswParams other : {HnswParams{32, 200, 42}, HnswParams{16, 100, 42}, HnswParams{16, 200, 7}}) {
    std::shared_ptr<const HnswGraph> unfit = HnswGraph::Build(input, other, pool, never);
    Check(HnswGraph::Build(space, params, pool, never, {unfit.get(), 0})->reused_rows() == 0,
          "a graph built with other parameters is not taken over");
  }
  std::shared_ptr<const HnswGraph> part = HnswGraph::Build(input, params, pool, never);
  Check(HnswGraph::Build(space, params, pool, never, {part.get(), 10000})->reused_rows() == 0,
        "a graph reaching past the space is not taken over");
  Check(HnswGraph::Build(space, params, pool, never, {part.get(), 1})->reused_rows() == 0,
        "a graph whose nodes are not where the space has vectors is not taken over");

  CancelToken stop;
  stop.Cancel();
  bool cancelled = false;
  try {
    HnswGraph::Build(space, params, pool, stop);
  } catch (const Error& e) {
    cancelled = e.status() == Status::kCancelled;
  }
  Check(cancelled, "a build stops when its token is cancelled");
}

}  // namespace
}  // namespace tessera

int main() {
  tessera::Run();
  return tessera::test::Report();
}
