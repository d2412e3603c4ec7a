// Checks the IVF index against the exact scan on seeded clustered data, through VectorIndex::Search
// as the store calls it: recall@10 under Euclidean and Cosine, the same answers from the saved
// file, files of other parameters or damaged ones not reused, rows without vectors and deleted
// rows never returned, filtered results holding only admitted rows, the prefilter fallback and
// the fallback of a starved probe, widening for deep windows, and cancelled builds.
// `ivf_test ROWS DIM` also measures build time and recall on that shape. Prints "N passed, M failed".
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "index/flat_index.h"
#include "index/ivf_index.h"
#include "index/vector_space.h"
#include "storage/file_names.h"
#include "util/file_util.h"
#include "util/value.h"

namespace tessera {
namespace {

using test::Check;

constexpr uint32_t kMissingEvery = 97;  // rows 7, 104, 201, ... have no vector

// Points around 1000 seeded centers (clustered, as real embeddings are: uniform noise has no
// neighbours worth finding), each cluster with its own spread.
class ClusteredData {
 public:
  ClusteredData(uint32_t dim, uint32_t seed) : dim_(dim), rng_(seed), centers_(kCenters * size_t(dim)), spread_(kCenters) {
    std::normal_distribution<float> unit(0, 1);
    std::uniform_real_distribution<float> spread(0.4f, 0.8f);
    for (float& c : centers_) c = unit(rng_);
    for (float& s : spread_) s = spread(rng_);
  }
  std::vector<float> Next(bool normalize) {
    std::normal_distribution<float> unit(0, 1);
    uint32_t c = uint32_t(rng_() % kCenters);
    std::vector<float> v(dim_);
    for (uint32_t d = 0; d < dim_; ++d) v[d] = centers_[size_t(c) * dim_ + d] + unit(rng_) * spread_[c];
    if (normalize) {
      double norm = 0;
      for (float x : v) norm += double(x) * x;
      for (float& x : v) x = float(x / std::sqrt(norm));
    }
    return v;
  }

 private:
  static constexpr uint32_t kCenters = 1000;
  uint32_t dim_;
  std::mt19937 rng_;
  std::vector<float> centers_, spread_;
};

// A row's attribute n, 0 to 9: hashed, since a periodic one would alias with the evenly spaced
// rows the prefilter estimate samples.
int64_t AttributeN(uint32_t row) { return (row * 2654435761u >> 16) % 10; }

// A sealed-like segment: every kMissingEvery-th row without a vector, attributes n and
// rare = (row % 1000 == 3).
SegmentPtr MakeSegment(uint32_t rows, uint32_t dim, bool normalize, uint32_t seed) {
  ClusteredData data(dim, seed);
  SegmentPtr segment = Segment::NewMemory(1, dim, rows);
  for (uint32_t r = 0; r < rows; ++r) {
    AttrEncoder attrs;
    attrs.AddInt("n", AttributeN(r));
    attrs.AddBool("rare", r % 1000 == 3);
    RecordInput rec{"r" + std::to_string(r), r % kMissingEvery == 7 ? -1 : 0, {}, attrs.Finish()};
    segment->Append(rec, data.Next(normalize));
  }
  return segment;
}

// Keeps every row offered that reaches min_score, as the query's collector does.
class CollectSink final : public ScoreSink {
 public:
  explicit CollectSink(double min_score) : ScoreSink(&floor_), min_score_(min_score) {}
  void Offer(uint32_t row, float score) override {
    if (score >= min_score_) offered_.push_back({-score, row});
  }
  std::vector<Neighbor> Top(size_t k) {
    std::sort(offered_.begin(), offered_.end(),
              [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance || (a.distance == b.distance && a.row < b.row); });
    offered_.resize(std::min(k, offered_.size()));
    return offered_;
  }

 private:
  std::atomic<float> floor_{-INFINITY};
  double min_score_;
  std::vector<Neighbor> offered_;
};

struct Answer {
  std::vector<Neighbor> top;
  SearchTrace trace;
};

struct Ask {
  uint32_t window = 10;
  uint32_t ef = 64;
  double min_score = -INFINITY;
  uint64_t version = 0;
  const char* filter = "[]";
  const std::vector<uint32_t>* narrowed = nullptr;  // as a filter index narrows a filter's rows
};

Answer Search(const VectorIndex& index, const Segment& segment, bool euclidean, const std::vector<float>& q, const Ask& ask) {
  Filter filter = Filter::CompileText(ask.filter, "filter");
  RowFilter admit(segment, ask.version, segment.deleted_rows(), filter, std::nullopt);
  VectorQuery query;
  query.vector = q.data();
  query.dim = segment.dim();
  query.euclidean = euclidean;
  query.window = ask.window;
  query.ef = ask.ef;
  query.min_score = ask.min_score;
  CollectSink sink(ask.min_score);
  CancelToken never;
  Answer answer;
  index.Search(segment, query, RowRange{0, segment.appended(), ask.narrowed}, admit, sink, never, answer.trace);
  answer.top = sink.Top(ask.window);
  return answer;
}

// What a batch of queries found against the exact scan.
struct Outcome {
  double recall = 0;
  bool only_admitted = true;  // every row returned has a vector and passes the query's filter
  bool same_as_exact = true;  // every answer is the exact one
  SearchTrace trace;
};

template <typename Admitted>
Outcome Compare(const VectorIndex& index, const Segment& segment, bool euclidean, const std::vector<std::vector<float>>& queries,
                const Ask& ask, Admitted admitted) {
  Outcome out;
  size_t hits = 0, wanted = 0;
  for (const std::vector<float>& q : queries) {
    Answer found = Search(index, segment, euclidean, q, ask);
    Answer exact = Search(*FlatIndex::Shared(), segment, euclidean, q, ask);
    out.trace.Add(found.trace);
    for (const Neighbor& n : found.top) {
      if (!segment.has_vector(n.row) || !admitted(n.row)) out.only_admitted = false;
      for (const Neighbor& e : exact.top) hits += e.row == n.row;
    }
    wanted += exact.top.size();
    bool same = found.top.size() == exact.top.size();
    for (size_t i = 0; same && i < found.top.size(); ++i) same = found.top[i].row == exact.top[i].row;
    out.same_as_exact &= same;
  }
  out.recall = double(hits) / double(std::max<size_t>(1, wanted));
  return out;
}

std::vector<std::vector<float>> Queries(uint32_t dim, bool normalize, size_t n) {
  ClusteredData data(dim, 1);  // the data's clusters (same seed), fresh points
  std::vector<std::vector<float>> queries;
  for (size_t i = 0; i < n; ++i) queries.push_back(data.Next(normalize));
  return queries;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Builds over rows x dim and reports build time, bytes per row and recall@10 at n_probe 8.
double MeasureRecall(uint32_t rows, uint32_t dim, Metric metric, ThreadPool& pool) {
  bool euclidean = metric == Metric::kEuclidean;
  SegmentPtr segment = MakeSegment(rows, dim, !euclidean, 1);
  AnnConfig config{.kind = AnnKind::kIvf, .seed = 42};
  CancelToken never;
  auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const IvfIndex> index = IvfIndex::Build("", *segment, metric, config, nullptr, pool, never);
  double build_ms = MillisSince(start);
  auto all = [](uint32_t) { return true; };
  Outcome o = Compare(*index, *segment, euclidean, Queries(dim, !euclidean, 200), Ask{}, all);
  std::printf("%s %u x %u: %u lists, build %.0f ms on %zu threads, %.1f bytes per row, recall@10 %.4f, %.0f rows scored per query\n",
              MetricName(metric), rows, dim, index->n_lists(), build_ms, pool.size(), double(index->bytes()) / rows, o.recall,
              double(o.trace.surfaced) / 200);
  Check(o.only_admitted, "rows without vectors are never returned");
  Check(o.trace.walks == 200 && o.trace.fallbacks == 0, "unfiltered queries are answered by the probe");
  return o.recall;
}

void Run() {
  ThreadPool pool(2);
  CancelToken never;
  Check(IvfLists::ListsFor(0, 20000) == 141 && IvfLists::ListsFor(0, 65536) == 256 && IvfLists::ListsFor(0, 1) == 1,
        "auto n_lists is round(sqrt(rows))");
  Check(IvfLists::ListsFor(0, 0) == 0 && IvfLists::ListsFor(500, 100) == 100, "no more lists than rows with a vector");

  Check(MeasureRecall(20000, 64, Metric::kEuclidean, pool) >= 0.9, "Euclidean recall@10 at n_probe 8 reaches 0.9");
  Check(MeasureRecall(20000, 64, Metric::kCosine, pool) >= 0.9, "Cosine recall@10 at n_probe 8 reaches 0.9");

  const uint32_t rows = 20000, dim = 64;
  SegmentPtr segment = MakeSegment(rows, dim, false, 1);
  std::vector<std::vector<float>> queries = Queries(dim, false, 50);
  AnnConfig config{.kind = AnnKind::kIvf, .seed = 42};
  std::string dir = "/tmp/tessera-ivf-test-" + std::to_string(::getpid());
  MakeDirs(dir);
  std::string path = SegmentIvfPath(dir, 3);
  Check(path.ends_with("/seg-3.ivf"), "IVF files are seg-N.ivf");
  VectorIndexPtr built = IvfIndex::Build(path, *segment, Metric::kEuclidean, config, nullptr, pool, never);

  // The saved file answers as the built lists did; other parameters or damage are never reused.
  for (bool mmap : {true, false}) {
    VectorIndexPtr opened = IvfIndex::Open(path, *segment, Metric::kEuclidean, config, nullptr, mmap);
    Check(opened != nullptr, "saved lists open");
    if (opened == nullptr) continue;
    bool same = true;
    for (const std::vector<float>& q : queries) {
      Answer a = Search(*built, *segment, true, q, Ask{}), b = Search(*opened, *segment, true, q, Ask{});
      for (size_t i = 0; same && i < a.top.size(); ++i) same = a.top[i].row == b.top[i].row && a.top[i].distance == b.top[i].distance;
      same &= a.top.size() == b.top.size();
    }
    Check(same, "the opened lists answer as the built ones");
  }
  AnnConfig other_lists = config, other_seed = config;
  other_lists.n_lists = 64;
  other_seed.seed = 7;
  Check(IvfIndex::Open(path, *segment, Metric::kEuclidean, other_lists, nullptr, true) == nullptr,
        "lists built with another n_lists are not reused");
  Check(IvfIndex::Open(path, *segment, Metric::kEuclidean, other_seed, nullptr, true) == nullptr,
        "lists built with another seed are not reused");
  Check(IvfIndex::Open(path, *segment, Metric::kDotProduct, config, nullptr, true) == nullptr,
        "lists built under another metric are not reused");
  SegmentPtr shorter = MakeSegment(rows - 1, dim, false, 1);
  Check(IvfIndex::Open(path, *shorter, Metric::kEuclidean, config, nullptr, true) == nullptr, "lists of another row count are not reused");
  AnnConfig more_probes = config;
  more_probes.n_probe = 16;
  Check(IvfIndex::Open(path, *segment, Metric::kEuclidean, more_probes, nullptr, true) != nullptr,
        "n_probe is a search knob: the lists still serve");
  Check(IvfIndex::Open(dir + "/missing.ivf", *segment, Metric::kEuclidean, config, nullptr, true) == nullptr, "no file, no lists");
  std::string bytes = ReadWholeFile(path);
  bytes[bytes.size() - 3] ^= 0x40;  // a row number
  WriteFileAtomic(dir + "/flipped.ivf", bytes);
  Check(IvfIndex::Open(dir + "/flipped.ivf", *segment, Metric::kEuclidean, config, nullptr, true) == nullptr,
        "a file with a damaged body is not used");
  WriteFileAtomic(dir + "/short.ivf", ReadWholeFile(path).substr(0, 4096));
  Check(IvfIndex::Open(dir + "/short.ivf", *segment, Metric::kEuclidean, config, nullptr, true) == nullptr, "a truncated file is not used");
  WriteFileAtomic(dir + "/torn.ivf", "TESS_IVF but not lists");
  Check(IvfIndex::Open(dir + "/torn.ivf", *segment, Metric::kEuclidean, config, nullptr, true) == nullptr, "a damaged file is not used");
  for (const std::string& f : ListDir(dir)) RemoveFile(dir + "/" + f);
  ::rmdir(dir.c_str());

  // Filters: results only ever hold admitted rows. A filter passing 30% of the rows is probed
  // (widening where the probed lists hold too few); one passing 0.1% is answered by the exact scan.
  auto n_under_3 = [&](uint32_t r) { return AttributeN(r) < 3; };
  Outcome third = Compare(*built, *segment, true, queries, Ask{.filter = R"([{"Lt":["n",{"Int":3}]}])"}, n_under_3);
  Check(third.only_admitted, "filtered results hold only admitted rows");
  Check(third.recall >= 0.9 && third.trace.fallbacks == 0,
        "a filter passing 30% is probed with recall, got " + std::to_string(third.recall));
  Check(third.trace.dropped_filtered > 0 && third.trace.survived > 0,
        "the plan counts the rows the filter dropped and those that survived");
  auto rare = [&](uint32_t r) { return r % 1000 == 3; };
  Outcome selective = Compare(*built, *segment, true, queries, Ask{.filter = R"([{"Eq":["rare",{"Bool":true}]}])"}, rare);
  Check(selective.only_admitted && selective.same_as_exact, "a selective filter's results are the exact ones");
  Check(selective.trace.fallbacks == queries.size() && selective.trace.walks == 0, "a selective filter falls back to the exact scan");

  // Deleted rows are never returned, and widen the probe. A min_score applies to the probe's
  // results (it orders like the distance), so a high floor leaves the exact answer; over rows a
  // filter index narrowed, only narrowed rows come back.
  for (uint32_t r = 0; r < rows; r += 3) segment->MarkDeleted(r, 5);
  auto live = [](uint32_t r) { return r % 3 != 0; };
  Outcome deleted = Compare(*built, *segment, true, queries, Ask{.version = 5}, live);
  Check(deleted.only_admitted && deleted.recall >= 0.9, "deleted rows are never returned, got recall " + std::to_string(deleted.recall));
  Check(deleted.trace.dropped_stale > 0, "the plan counts deleted rows as stale");
  Answer nearest = Search(*FlatIndex::Shared(), *segment, true, queries[0], Ask{.window = 3, .version = 5});
  Ask floor{.min_score = -nearest.top.back().distance, .version = 5};
  Outcome high_floor = Compare(*built, *segment, true, {queries[0]}, floor, live);
  Check(high_floor.same_as_exact && high_floor.trace.fallbacks == 0 && high_floor.trace.dropped_min_score > 0,
        "a high min_score leaves the exact answer, counting the rows under it");
  std::vector<uint32_t> odd;
  for (uint32_t r = 1; r < rows; r += 2) odd.push_back(r);
  Ask within{.version = 5, .narrowed = &odd};
  auto odd_live = [&](uint32_t r) { return r % 2 == 1 && live(r); };
  Outcome narrowed = Compare(*built, *segment, true, queries, within, odd_live);
  Check(narrowed.only_admitted && narrowed.recall >= 0.9,
        "over narrowed rows only narrowed rows come back, got recall " + std::to_string(narrowed.recall));

  // A deep window widens the probe past n_probe to ef candidates instead of falling back.
  AnnConfig one_probe = config;
  one_probe.n_probe = 1;
  VectorIndexPtr narrow = IvfIndex::Build("", *segment, Metric::kEuclidean, one_probe, nullptr, pool, never);
  Outcome deep = Compare(*narrow, *segment, true, queries, Ask{.window = 1000, .ef = 4000, .version = 5}, live);
  Check(deep.trace.fallbacks == 0 && deep.trace.survived >= 4000 * queries.size(), "a deep window widens the probe to ef candidates");
  std::printf("filtered 30%%: recall %.4f, %.0f rows scored per query; deleted 1/3: recall %.4f; window 1000 from ef 4000: recall %.4f\n",
              third.recall, double(third.trace.surfaced) / queries.size(), deleted.recall, deep.recall);

  CancelToken stop;
  stop.Cancel();
  bool cancelled = false;
  try {
    IvfIndex::Build("", *segment, Metric::kEuclidean, config, nullptr, pool, stop);
  } catch (const Error& e) {
    cancelled = e.status() == Status::kCancelled;
  }
  Check(cancelled, "a build stops when its token is cancelled");
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  if (argc == 3) {
    tessera::ThreadPool pool(2);
    tessera::MeasureRecall(uint32_t(std::stoul(argv[1])), uint32_t(std::stoul(argv[2])), tessera::Metric::kEuclidean, pool);
    tessera::MeasureRecall(uint32_t(std::stoul(argv[1])), uint32_t(std::stoul(argv[2])), tessera::Metric::kCosine, pool);
  } else {
    tessera::Run();
  }
  return tessera::test::Report();
}
