// bench:ann's glass peer (issue 48): builds glass's HNSW graph on the bench's base vectors and times
// its searchers one query at a time on one thread, as bench/ann.ts times every engine. Our code,
// compiled against glass's headers in the git-ignored bench/.glass/src by bench/glass-deps.sh.
//
// usage: glass_driver BASE QUERIES WORKDIR R L GRAPH_QUANT SEARCHERS K EFS RUNS
//   BASE, QUERIES: u32 rows, u32 dim, then rows x dim f32 row-major (little-endian)
//   WORKDIR: where the built graph is saved (each searcher loads its own copy: create_searcher takes it)
//   SEARCHERS: comma list of QUANT or QUANT+REFINE, e.g. SQ8U+FP32,SQ8U,FP32
//   EFS: comma list; RUNS: timed passes per ef, after one warm-up pass
// stdout carries JSON lines only (glass's own printing is moved to stderr):
//   {"type":"build",...} once, {"type":"searcher",...} per searcher, {"type":"ef",...} per searcher
//   and ef with every query's time (us) of the pass with the lowest mean, as ann.ts's measure() keeps,
//   and every query's top-k row numbers (rows of BASE, nearest first).
// Threads: the build and SetData use OpenMP's default (all cores, or OMP_NUM_THREADS); Optimize's
// prefetch tuning and every search run with omp_set_num_threads(1), the one-thread case measured.
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "glass/hnsw/hnsw.hpp"
#include "glass/searcher/graph_searcher.hpp"

namespace {

using Clock = std::chrono::steady_clock;

FILE* json = stdout;

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "glass_driver: %s\n", msg.c_str());
  std::exit(2);
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Matrix {
  uint32_t rows = 0;
  uint32_t dim = 0;
  std::vector<float> values;
  const float* row(uint32_t r) const { return values.data() + static_cast<size_t>(r) * dim; }
};

Matrix read_matrix(const char* path) {
  Matrix m;
  FILE* f = std::fopen(path, "rb");
  if (!f) fail(std::string("cannot open ") + path);
  if (std::fread(&m.rows, 4, 1, f) != 1 || std::fread(&m.dim, 4, 1, f) != 1) fail(std::string("short header in ") + path);
  m.values.resize(static_cast<size_t>(m.rows) * m.dim);
  if (std::fread(m.values.data(), sizeof(float), m.values.size(), f) != m.values.size()) fail(std::string("short data in ") + path);
  std::fclose(f);
  return m;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at; (at = s.find(sep, from)) != std::string::npos; from = at + 1) out.push_back(s.substr(from, at - from));
  out.push_back(s.substr(from));
  return out;
}

bool known_quant(const std::string& q) { return glass::quantizer_map.count(q) > 0; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 11) fail("usage: glass_driver BASE QUERIES WORKDIR R L GRAPH_QUANT SEARCHERS K EFS RUNS");
  const Matrix base = read_matrix(argv[1]);
  const Matrix queries = read_matrix(argv[2]);
  const std::string graph_file = std::string(argv[3]) + "/graph.glass";
  const int R = std::atoi(argv[4]);
  const int L = std::atoi(argv[5]);
  const std::string graph_quant = argv[6];
  const std::vector<std::string> searchers = split(argv[7], ',');
  const int k = std::atoi(argv[8]);
  std::vector<int> efs;
  for (const auto& e : split(argv[9], ',')) efs.push_back(std::atoi(e.c_str()));
  const int runs = std::atoi(argv[10]);
  if (base.dim != queries.dim) fail("base and queries differ in dimension");
  if (R <= 0 || L <= 0 || k <= 0 || runs <= 0 || base.rows < 2) fail("R, L, k, runs must be positive and base hold 2+ rows");
  if (!known_quant(graph_quant)) fail("unknown graph quantizer " + graph_quant);
  for (const auto& s : searchers)
    for (const auto& q : split(s, '+'))
      if (!known_quant(q) || split(s, '+').size() > 2) fail("bad searcher " + s + " (QUANT or QUANT+REFINE)");

  // glass prints progress on stdout: point fd 1 at stderr and keep the real stdout for our JSON.
  std::fflush(stdout);
  json = fdopen(dup(STDOUT_FILENO), "w");
  if (!json || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) fail("cannot redirect stdout");

  const int build_threads = omp_get_max_threads();
  auto t = Clock::now();
  auto builder = glass::create_hnsw("L2", graph_quant, R, L);
  if (!builder) fail("create_hnsw failed for " + graph_quant);
  glass::Graph<int32_t> graph = builder->Build(base.values.data(), static_cast<int32_t>(base.rows), static_cast<int32_t>(base.dim));
  const double build_s = seconds_since(t);
  graph.save(graph_file);
  std::fprintf(json,
               "{\"type\":\"build\",\"build_s\":%.3f,\"construction_s\":%.3f,\"threads\":%d,\"R\":%d,\"L\":%d,\"quant\":\"%s\",\"rows\":%u,"
               "\"dim\":%u}\n",
               build_s, builder->GetConstructionTime(), build_threads, R, L, graph_quant.c_str(), base.rows, base.dim);
  std::fflush(json);
  builder.reset();
  graph = glass::Graph<int32_t>();

  std::vector<int32_t> ids(static_cast<size_t>(queries.rows) * k);
  std::vector<int32_t> first_ids(ids.size());
  std::vector<double> times(queries.rows);
  std::vector<double> best(queries.rows);
  for (const auto& name : searchers) {
    const auto parts = split(name, '+');
    glass::Graph<int32_t> g;
    g.load(graph_file);
    omp_set_num_threads(build_threads);
    t = Clock::now();
    auto searcher = glass::create_searcher(std::move(g), "L2", parts[0], parts.size() > 1 ? parts[1] : "");
    if (!searcher) fail("create_searcher failed for " + name);
    searcher->SetData(base.values.data(), static_cast<int32_t>(base.rows), static_cast<int32_t>(base.dim));
    const double set_data_s = seconds_since(t);
    omp_set_num_threads(1);
    t = Clock::now();
    searcher->Optimize(1);
    const double optimize_s = seconds_since(t);
    std::fprintf(json, "{\"type\":\"searcher\",\"searcher\":\"%s\",\"set_data_s\":%.3f,\"optimize_s\":%.3f}\n", name.c_str(), set_data_s,
                 optimize_s);
    std::fflush(json);

    for (const int ef : efs) {
      searcher->SetEf(ef);
      for (uint32_t q = 0; q < queries.rows; q++) searcher->Search(queries.row(q), k, ids.data() + static_cast<size_t>(q) * k);
      double best_mean = 1e300;
      for (int run = 0; run < runs; run++) {
        double sum = 0;
        for (uint32_t q = 0; q < queries.rows; q++) {
          const auto t0 = Clock::now();
          searcher->Search(queries.row(q), k, ids.data() + static_cast<size_t>(q) * k);
          times[q] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
          sum += times[q];
        }
        if (run == 0) first_ids = ids;  // ann.ts takes recall from the first pass
        if (sum / queries.rows < best_mean) {
          best_mean = sum / queries.rows;
          best = times;
        }
      }
      std::fprintf(json, "{\"type\":\"ef\",\"searcher\":\"%s\",\"ef\":%d,\"mean_us\":%.3f,\"times_us\":[", name.c_str(), ef, best_mean);
      for (uint32_t q = 0; q < queries.rows; q++) std::fprintf(json, q ? ",%.3f" : "%.3f", best[q]);
      std::fputs("],\"ids\":[", json);
      for (uint32_t q = 0; q < queries.rows; q++) {
        std::fputs(q ? ",[" : "[", json);
        for (int j = 0; j < k; j++) std::fprintf(json, j ? ",%d" : "%d", first_ids[static_cast<size_t>(q) * k + j]);
        std::fputc(']', json);
      }
      std::fputs("]}\n", json);
      std::fflush(json);
    }
  }
  std::remove(graph_file.c_str());
  return 0;
}
