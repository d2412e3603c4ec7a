#include "tessera/exact_search.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>

#include "tessera/error.h"
#include "tessera/hit_writer.h"
#include "tessera/kernels.h"

namespace tessera {
namespace {

constexpr uint32_t kRowsPerTask = 16384;
constexpr uint32_t kRowsPerCancelCheck = 4096;

struct ScopeEntry {
  const CollectionState* collection;
  // Per named vector asked for: its weight; "default" means the record's main vector.
  std::vector<std::pair<std::string, float>> names;
};

struct Task {
  uint32_t scope_index;
  const Segment* segment;
  uint32_t begin, end;
};

// Resolves the scope (aliases one hop, duplicates dropped, missing names contribute nothing) in
// collection-name order, so a candidate's scope index orders it like its collection name.
std::vector<ScopeEntry> ResolveScope(const Snapshot& snap, const SearchParams& p) {
  std::set<std::string> names;
  if (p.scope.empty()) {
    for (const auto& [name, c] : snap.collections) names.insert(name);
  } else {
    for (const std::string& n : p.scope)
      if (const CollectionState* c = snap.Resolve(n)) names.insert(c->name);
  }
  std::vector<ScopeEntry> out;
  for (const std::string& n : names) {
    ScopeEntry e{snap.collections.at(n).get(), {}};
    for (const std::string& name : p.names) {
      auto w = p.name_weights.find(name);
      e.names.emplace_back(name, w == p.name_weights.end() ? 1.0f : w->second);
    }
    out.push_back(std::move(e));
  }
  for (const std::string& name : p.names) {
    if (name == "default") continue;
    bool declared = std::any_of(out.begin(), out.end(), [&](const ScopeEntry& e) {
      const auto& vn = e.collection->vector_names;
      return std::find(vn.begin(), vn.end(), name) != vn.end();
    });
    if (!declared) throw BadRequest("names: vector '" + name + "' is not declared in any collection in scope");
  }
  return out;
}

}  // namespace

std::string ExactSearch(const Snapshot& snap, const SearchParams& p, Metric metric, ThreadPool& pool,
                        const CancelToken& cancel) {
  std::vector<ScopeEntry> scope = ResolveScope(snap, p);
  const size_t depth = size_t(p.offset) + p.top_k;
  std::vector<Task> tasks;
  for (uint32_t s = 0; s < scope.size(); ++s)
    for (const SegmentRef& ref : scope[s].collection->segments)
      for (uint32_t b = 0; b < ref.rows; b += kRowsPerTask) tasks.push_back({s, ref.segment.get(), b, std::min(ref.rows, b + kRowsPerTask)});

  const Kernels& k = ActiveKernels();
  const float* q = p.query.data();
  const uint32_t dim = uint32_t(p.query.size());
  auto distance = [&](const float* v) {
    return metric == Metric::kEuclidean ? -k.l2sq(q, v, dim) : k.dot(q, v, dim);
  };
  const bool use_names = !p.names.empty();
  const bool sum_pool = p.pool == Pool::kSum;
  const double min_score = p.min_score.value_or(-INFINITY);

  std::vector<std::vector<Candidate>> found(tasks.size());
  pool.ParallelFor(tasks.size(), [&](size_t t) {
    const Task& task = tasks[t];
    const Segment& seg = *task.segment;
    const ScopeEntry& entry = scope[task.scope_index];
    std::vector<const NamedColumn*> columns;
    for (const auto& [name, w] : entry.names) columns.push_back(name == "default" ? nullptr : seg.named(name));
    CandidateHeap heap(depth);
    for (uint32_t r = task.begin; r < task.end; ++r) {
      if ((r - task.begin) % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
      if (!seg.visible(r, snap.version)) continue;
      float score;
      if (!use_names) {
        if (!seg.has_vector(r)) continue;
        score = distance(seg.vector(r));
      } else {
        // A record is scored on the names it carries and not penalized for the others.
        bool any = false;
        float folded = 0;
        for (size_t i = 0; i < columns.size(); ++i) {
          const float* v = nullptr;
          if (entry.names[i].first == "default") v = seg.has_vector(r) ? seg.vector(r) : nullptr;
          else if (columns[i] && columns[i]->has(r)) v = columns[i]->row(r, dim);
          if (v == nullptr) continue;
          float s = distance(v) * entry.names[i].second;
          folded = !any ? s : sum_pool ? folded + s : std::max(folded, s);
          any = true;
        }
        if (!any) continue;
        score = folded;
      }
      if (score < min_score) continue;
      heap.Offer(Candidate{score, task.scope_index, seg.row_id(r), &seg, r});
    }
    found[t] = heap.Take();
  });

  std::vector<Candidate> all;
  for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
  std::vector<std::string_view> collection_names;
  for (const ScopeEntry& e : scope) collection_names.push_back(e.collection->name);
  return WriteHits(all, p.offset, p.top_k, collection_names, Projection{p.include_attributes, p.exclude_attributes});
}

}  // namespace tessera
