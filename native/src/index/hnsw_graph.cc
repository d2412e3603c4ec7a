#include "index/hnsw_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <queue>

#include "tessera/error.h"
#include "util/crc32c.h"
#include "util/prefetch.h"

namespace tessera {

struct HnswGraph::Header {
  uint64_t magic;
  uint32_t rows;
  uint32_t m;
  uint32_t ef_construction;
  uint32_t space_kind;
  uint64_t seed;
  uint32_t entry;
  int32_t max_level;  // -1: no node
  uint32_t nodes;
  uint32_t body_crc;  // of the block after the header: a damaged file is never walked
  uint64_t upper_words;
  uint64_t block_bytes;
  uint32_t crc;  // of the header bytes before it
  uint32_t pad;
};

namespace {

constexpr uint64_t kMagic = 0x32304e53484e5354;  // "TSHNSW02"
constexpr uint8_t kAbsent = 0xFF;
constexpr int kMaxLevel = 16;
constexpr uint32_t kNone = UINT32_MAX;
constexpr size_t kLockStripes = 4096;
// Links a node can have at one level: 2 x m at level 0, m above, and m is at most 128.
constexpr size_t kMaxLinks = 256;
static_assert(sizeof(HnswGraph::Header) == 72, "the file layout");

struct Layout {
  size_t levels, upper_offsets, level0, upper, total;
};

size_t Align(size_t x) { return (x + 63) & ~size_t(63); }

Layout LayoutOf(uint32_t rows, uint32_t m, uint64_t upper_words) {
  Layout l;
  l.levels = Align(sizeof(HnswGraph::Header));
  l.upper_offsets = Align(l.levels + rows);
  l.level0 = Align(l.upper_offsets + sizeof(uint32_t) * rows);
  l.upper = Align(l.level0 + sizeof(uint32_t) * size_t(rows) * (2 * m + 1));
  l.total = l.upper + sizeof(uint32_t) * upper_words;
  return l;
}

uint32_t HeaderCrc(const HnswGraph::Header& h) { return Crc32c(&h, offsetof(HnswGraph::Header, crc)); }

uint32_t BodyCrc(const void* block, size_t bytes, ThreadPool* pool = nullptr) {
  return ParallelCrc32c(static_cast<const uint8_t*>(block) + sizeof(HnswGraph::Header), bytes - sizeof(HnswGraph::Header), pool);
}

// A row's level: floor(-ln(u) / ln(M)) for u uniform in (0, 1], drawn from (seed, row) alone so
// the graph's shape does not depend on which thread inserts which row.
int DrawLevel(uint64_t seed, uint32_t row, double level_mult) {
  uint64_t x = seed ^ (uint64_t(row) * 0x9E3779B97F4A7C15ull);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  double u = (double(x >> 11) + 1.0) / 9007199254740992.0;
  return std::min(kMaxLevel, int(-std::log(u) * level_mult));
}

// Rows a walk has seen: one bit per row (a 60,000-row segment's is 7.5 KB, a 10M-row one's 1.25 MB,
// where a 16-bit tag per row cleared by bumping an epoch took 16 times that per thread; a walk of
// Fashion-MNIST measured the same either way). A walk clears only the words it set. One per
// thread, reused across walks.
class VisitedRows {
 public:
  static VisitedRows& ForThread(uint32_t rows) {
    thread_local VisitedRows visited;
    visited.Reset(rows);
    return visited;
  }
  // True the first time row is seen in this walk.
  bool Visit(uint32_t row) {
    uint64_t& word = bits_[row >> 6];
    uint64_t bit = uint64_t(1) << (row & 63);
    if (word & bit) return false;
    if (word == 0) set_.push_back(row >> 6);
    word |= bit;
    return true;
  }

 private:
  void Reset(uint32_t rows) {
    for (uint32_t w : set_) bits_[w] = 0;
    set_.clear();
    if (bits_.size() < (size_t(rows) + 63) / 64) bits_.resize((size_t(rows) + 63) / 64, 0);
  }
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> set_;  // words with a bit set this walk
};

struct Closer {
  bool operator()(const Neighbor& a, const Neighbor& b) const { return a.distance > b.distance; }
};
struct Farther {
  bool operator()(const Neighbor& a, const Neighbor& b) const { return a.distance < b.distance; }
};
using NearestFirst = std::priority_queue<Neighbor, std::vector<Neighbor>, Closer>;
using FarthestFirst = std::priority_queue<Neighbor, std::vector<Neighbor>, Farther>;

class AdmitAll final : public WalkAdmission {
 public:
  bool Admit(uint32_t, float) override { return true; }
};

}  // namespace

// The links of one node at one level: a count and up to capacity slots.
struct LinkList {
  uint32_t* words;
  uint32_t capacity;
  uint32_t count() const { return words[0]; }
  const uint32_t* begin() const { return words + 1; }
  const uint32_t* end() const { return words + 1 + words[0]; }
};

LinkList LinksOf(const HnswGraph::Arrays& g, uint32_t row, int level) {
  uint32_t m = g.header->m;
  if (level == 0) return {g.level0 + size_t(row) * (2 * m + 1), 2 * m};
  return {g.upper + g.upper_offsets[row] + size_t(level - 1) * (m + 1), m};
}

// The walk both building and querying use. With locks (a build), links may change under the
// walk, so each list is copied out under its row's lock before it is read.
class Walker {
 public:
  // From a query in the space's prepared form.
  Walker(const HnswGraph::Arrays& g, std::mutex* locks, const VectorSpace& space, const void* query)
      : g_(g), locks_(locks), space_(space), query_(query) {}
  // From one of the space's rows (an insert).
  Walker(const HnswGraph::Arrays& g, std::mutex* locks, const VectorSpace& space, uint32_t row)
      : g_(g), locks_(locks), space_(space), from_row_(row) {}

  float Distance(uint32_t row) const {
    float d;
    Distances(&row, 1, &d);
    return d;
  }
  void Distances(const uint32_t* rows, size_t n, float* out) const {
    if (query_ != nullptr)
      space_.Distances(query_, rows, n, out);
    else
      space_.DistancesFromRow(from_row_, rows, n, out);
  }

  // Greedy descent at one level from start: the closest row reachable by always improving. Each
  // node's links are scored as one batch, so their rows load together rather than one by one.
  Neighbor Greedy(Neighbor start, int level) const {
    uint32_t links[kMaxLinks];
    float distances[kMaxLinks];
    for (bool moved = true; moved;) {
      moved = false;
      size_t n = 0;
      ForEachLink(start.row, level, [&](uint32_t row) { links[n++] = row; });
      Distances(links, n, distances);
      for (size_t i = 0; i < n; ++i)
        if (distances[i] < start.distance) start = {distances[i], links[i]}, moved = true;
    }
    return start;
  }

  // Beam search at one level; results farthest first (the heap's order).
  FarthestFirst Beam(Neighbor start, int level, uint32_t ef, WalkAdmission& admit, const CancelToken* cancel) const {
    VisitedRows& visited = VisitedRows::ForThread(g_.header->rows);
    NearestFirst frontier;
    FarthestFirst results;
    float bound = INFINITY;
    visited.Visit(start.row);
    frontier.push(start);
    if (admit.Admit(start.row, start.distance)) results.push(start), bound = start.distance;
    uint32_t fresh[kMaxLinks];
    float distances[kMaxLinks];
    uint32_t expanded = 0;
    while (!frontier.empty()) {
      Neighbor c = frontier.top();
      if (c.distance > bound && results.size() >= ef) break;
      frontier.pop();
      if (cancel && ++expanded % 256 == 0) cancel->ThrowIfCancelled();
      if (admit.Abandoned()) break;
      size_t n = 0;
      ForEachLink(c.row, level, [&](uint32_t row) {
        if (visited.Visit(row)) fresh[n++] = row;
      });
      // The frontier's best is likely the next node expanded: its links load while this batch is scored.
      if (!frontier.empty()) {
        LinkList next = LinksOf(g_, frontier.top().row, level);
        PrefetchBytes(next.words, sizeof(uint32_t) * (next.capacity + 1));
      }
      Distances(fresh, n, distances);
      for (size_t i = 0; i < n; ++i) {
        float d = distances[i];
        if (results.size() >= ef && d >= bound) continue;
        frontier.push({d, fresh[i]});
        if (!admit.Admit(fresh[i], d)) continue;
        results.push({d, fresh[i]});
        if (results.size() > ef) results.pop();
        bound = results.top().distance;
      }
    }
    return results;
  }

  template <typename Fn>
  void ForEachLink(uint32_t row, int level, Fn&& fn) const {
    LinkList links = LinksOf(g_, row, level);
    if (locks_ == nullptr) {
      for (const uint32_t* n = links.begin(); n != links.end(); ++n) fn(*n);
      return;
    }
    uint32_t copy[kMaxLinks + 1];
    {
      std::lock_guard<std::mutex> lock(locks_[row % kLockStripes]);
      std::memcpy(copy, links.words, sizeof(uint32_t) * (links.count() + 1));
    }
    for (uint32_t i = 1; i <= copy[0]; ++i) fn(copy[i]);
  }

 private:
  const HnswGraph::Arrays& g_;
  std::mutex* locks_;
  const VectorSpace& space_;
  const void* query_ = nullptr;
  uint32_t from_row_ = 0;
};

// The graph while it is built: the same block, writable, with a lock per stripe of rows.
class HnswGraph::Builder {
 public:
  Builder(const VectorSpace& space, const HnswParams& params) : space_(space), params_(params), locks_(kLockStripes) {}

  std::shared_ptr<const HnswGraph> Build(ThreadPool& pool, const CancelToken& stop, HnswGraphPart reuse) {
    uint32_t rows = space_.rows();
    double level_mult = 1.0 / std::log(double(params_.m));
    const HnswGraph* part = reuse.graph != nullptr && Fits(reuse) ? reuse.graph : nullptr;
    uint32_t part_begin = part ? reuse.first_row : 0, part_end = part ? reuse.first_row + part->rows() : 0;
    std::vector<uint32_t> order;  // rows to insert
    std::vector<uint8_t> levels(rows, kAbsent);
    std::vector<uint32_t> offsets(rows, 0);
    uint64_t upper_words = 0;
    uint32_t nodes = 0;
    for (uint32_t r = 0; r < rows; ++r) {
      if (!space_.Present(r)) continue;
      bool reused = r >= part_begin && r < part_end;
      // A reused row keeps the level it has in its graph: its links there were made for it.
      int level = reused ? part->arrays_.levels[r - part_begin] : DrawLevel(params_.seed, r, level_mult);
      levels[r] = uint8_t(level);
      offsets[r] = uint32_t(upper_words);
      upper_words += uint64_t(level) * (params_.m + 1);
      ++nodes;
      if (!reused) order.push_back(r);
    }
    if (upper_words > UINT32_MAX) throw Internal("HNSW graph too large for one segment");
    Layout layout = LayoutOf(rows, params_.m, upper_words);
    auto graph = std::shared_ptr<HnswGraph>(new HnswGraph());
    graph->block_ = Region::Anonymous(layout.total);
    auto* base = static_cast<uint8_t*>(graph->block_.data());
    auto* header = reinterpret_cast<Header*>(base);
    *header = Header{kMagic,       rows, params_.m, params_.ef_construction, space_.kind(), params_.seed, kNone, -1, 0, 0, upper_words,
                     layout.total, 0,    0};
    std::memcpy(base + layout.levels, levels.data(), rows);
    std::memcpy(base + layout.upper_offsets, offsets.data(), sizeof(uint32_t) * rows);
    graph->Bind();
    g_ = graph->arrays_;

    // Rows before `first` of order are in the graph already (a reused part has the entry point).
    size_t first = 0;
    if (part) {
      CopyPart(*part, part_begin);
      graph->reused_rows_ = part->rows();
    } else if (!order.empty()) {
      Insert(order[0]);
      first = 1;
    }
    if (first < order.size()) {
      constexpr size_t kChunk = 64;
      size_t tasks = (order.size() - first + kChunk - 1) / kChunk;
      pool.ParallelFor(tasks, [&](size_t t) {
        size_t end = std::min(order.size(), first + (t + 1) * kChunk);
        for (size_t i = first + t * kChunk; i < end; ++i) {
          stop.ThrowIfCancelled();
          Insert(order[i]);
        }
      });
    }
    header->nodes = nodes;
    header->body_crc = BodyCrc(base, layout.total);
    header->crc = HeaderCrc(*header);
    return graph;
  }

 private:
  // Whether reuse's graph was built with this build's parameters in this kind of space, over rows
  // that lie inside this space and have vectors exactly where its nodes are.
  bool Fits(const HnswGraphPart& reuse) const {
    const HnswGraph::Arrays& p = reuse.graph->arrays_;
    const Header& h = *p.header;
    if (h.m != params_.m || h.ef_construction != params_.ef_construction || h.seed != params_.seed || h.space_kind != space_.kind() ||
        uint64_t(reuse.first_row) + h.rows > space_.rows() || h.entry == kNone)
      return false;
    for (uint32_t r = 0; r < h.rows; ++r)
      if ((p.levels[r] != kAbsent) != space_.Present(reuse.first_row + r)) return false;
    return true;
  }

  // The part's links, each row number moved by first_row, and its entry point.
  void CopyPart(const HnswGraph& part, uint32_t first_row) {
    const HnswGraph::Arrays& p = part.arrays_;
    for (uint32_t r = 0; r < p.header->rows; ++r) {
      if (p.levels[r] == kAbsent) continue;
      for (int l = 0; l <= p.levels[r]; ++l) {
        LinkList from = LinksOf(p, r, l);
        LinkList to = LinksOf(g_, first_row + r, l);
        to.words[0] = from.count();
        for (uint32_t i = 0; i < from.count(); ++i) to.words[1 + i] = from.begin()[i] + first_row;
      }
    }
    g_.header->entry = p.header->entry + first_row;
    g_.header->max_level = p.header->max_level;
  }

  void Insert(uint32_t row) {
    int level = g_.levels[row];
    Walker walker(g_, locks_.data(), space_, row);
    std::unique_lock<std::mutex> top(top_mu_);
    if (g_.header->entry == kNone) {
      g_.header->entry = row;
      g_.header->max_level = level;
      return;
    }
    uint32_t entry = g_.header->entry;
    int max_level = g_.header->max_level;
    // An insert that raises the top level keeps the entry lock, so no other insert descends from
    // an entry point about to change.
    if (level <= max_level) top.unlock();
    Neighbor cur{walker.Distance(entry), entry};
    for (int l = max_level; l > level; --l) cur = walker.Greedy(cur, l);
    AdmitAll all;
    for (int l = std::min(level, max_level); l >= 0; --l) {
      FarthestFirst found = walker.Beam(cur, l, params_.ef_construction, all, nullptr);
      std::vector<Neighbor> nearest = Drain(found);
      cur = nearest.front();
      std::vector<Neighbor> chosen = SelectNeighbors(nearest, params_.m);
      {
        std::lock_guard<std::mutex> lock(LockOf(row));
        Store(LinksOf(g_, row, l), chosen);
      }
      for (const Neighbor& n : chosen) LinkBack(n.row, row, n.distance, l);
    }
    if (level > max_level) {
      g_.header->entry = row;
      g_.header->max_level = level;
    }
  }

  // Adds row to neighbour's links, pruning them with the heuristic when they are full.
  void LinkBack(uint32_t neighbour, uint32_t row, float distance, int level) {
    std::lock_guard<std::mutex> lock(LockOf(neighbour));
    LinkList links = LinksOf(g_, neighbour, level);
    if (links.count() < links.capacity) {
      links.words[1 + links.count()] = row;
      ++links.words[0];
      return;
    }
    std::vector<Neighbor> candidates{{distance, row}};
    for (const uint32_t* n = links.begin(); n != links.end(); ++n) candidates.push_back({space_.DistanceFromRow(neighbour, *n), *n});
    std::sort(candidates.begin(), candidates.end(), [](const Neighbor& a, const Neighbor& b) { return a.distance < b.distance; });
    Store(links, SelectNeighbors(candidates, links.capacity));
  }

  // The heuristic of the paper (and hnswlib): keep a candidate only if it is closer to the new
  // point than to every neighbour kept so far, so links spread in direction instead of bunching.
  std::vector<Neighbor> SelectNeighbors(const std::vector<Neighbor>& nearest_first, uint32_t m) const {
    std::vector<Neighbor> kept;
    for (const Neighbor& c : nearest_first) {
      if (kept.size() >= m) break;
      bool diverse =
          std::all_of(kept.begin(), kept.end(), [&](const Neighbor& k) { return space_.DistanceFromRow(c.row, k.row) >= c.distance; });
      if (diverse) kept.push_back(c);
    }
    return kept;
  }

  static void Store(LinkList links, const std::vector<Neighbor>& rows) {
    links.words[0] = uint32_t(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) links.words[1 + i] = rows[i].row;
  }

  static std::vector<Neighbor> Drain(FarthestFirst& heap) {
    std::vector<Neighbor> out(heap.size());
    for (size_t i = out.size(); i-- > 0; heap.pop()) out[i] = heap.top();
    return out;
  }

  std::mutex& LockOf(uint32_t row) { return locks_[row % kLockStripes]; }

  const VectorSpace& space_;
  HnswParams params_;
  HnswGraph::Arrays g_;
  std::vector<std::mutex> locks_;
  std::mutex top_mu_;
};

std::shared_ptr<const HnswGraph> HnswGraph::Build(const VectorSpace& space, const HnswParams& params, ThreadPool& pool,
                                                  const CancelToken& stop, HnswGraphPart reuse) {
  if (params.m < 2 || params.m > 128) throw BadRequest("m must be between 2 and 128");
  Builder builder(space, params);
  return builder.Build(pool, stop, reuse);
}

std::shared_ptr<const HnswGraph> HnswGraph::Open(const std::string& path, const VectorSpace& space, const HnswParams& params, bool mmap,
                                                 ThreadPool* pool) {
  if (!FileExists(path)) return nullptr;
  auto graph = std::shared_ptr<HnswGraph>(new HnswGraph());
  graph->block_ = Region::OpenFile(path, mmap);
  if (graph->block_.size() < sizeof(Header)) return nullptr;
  const auto* h = static_cast<const Header*>(graph->block_.data());
  if (h->magic != kMagic || h->crc != HeaderCrc(*h) || h->block_bytes != graph->block_.size()) return nullptr;
  if (h->rows != space.rows() || h->space_kind != space.kind() || h->m != params.m || h->ef_construction != params.ef_construction ||
      h->seed != params.seed)
    return nullptr;
  if (LayoutOf(h->rows, h->m, h->upper_words).total != h->block_bytes) return nullptr;
  graph->block_.ReadAhead();
  if (BodyCrc(graph->block_.data(), graph->block_.size(), pool) != h->body_crc) return nullptr;
  graph->Bind();
  return graph;
}

void HnswGraph::Save(const std::string& path) const {
  WriteFileAtomic(path, std::string_view(static_cast<const char*>(block_.data()), block_.size()));
}

void HnswGraph::Bind() {
  auto* base = static_cast<uint8_t*>(block_.data());
  arrays_.header = reinterpret_cast<Header*>(base);
  Layout layout = LayoutOf(arrays_.header->rows, arrays_.header->m, arrays_.header->upper_words);
  arrays_.levels = base + layout.levels;
  arrays_.upper_offsets = reinterpret_cast<const uint32_t*>(base + layout.upper_offsets);
  arrays_.level0 = reinterpret_cast<uint32_t*>(base + layout.level0);
  arrays_.upper = reinterpret_cast<uint32_t*>(base + layout.upper);
}

uint32_t HnswGraph::rows() const { return arrays_.header->rows; }
uint32_t HnswGraph::nodes() const { return arrays_.header->nodes; }
uint32_t HnswGraph::m() const { return arrays_.header->m; }

std::vector<Neighbor> HnswGraph::Search(const VectorSpace& space, const void* query, uint32_t ef, WalkAdmission& admit,
                                        const CancelToken& cancel) const {
  std::vector<Neighbor> out;
  const Header& h = *arrays_.header;
  if (h.max_level < 0) return out;
  Walker walker(arrays_, nullptr, space, query);
  Neighbor cur{walker.Distance(h.entry), h.entry};
  for (int l = h.max_level; l > 0; --l) cur = walker.Greedy(cur, l);
  FarthestFirst found = walker.Beam(cur, 0, std::max<uint32_t>(ef, 1), admit, &cancel);
  out.resize(found.size());
  for (size_t i = out.size(); i-- > 0; found.pop()) out[i] = found.top();
  return out;
}

}  // namespace tessera
