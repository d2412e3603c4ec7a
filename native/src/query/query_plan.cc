#include "query/query_plan.h"

#include <string_view>

namespace tessera {
namespace {

uint64_t Micros(uint64_t ns) { return ns / 1000; }

bool IndexPath(std::string_view path) { return path == "ann" || path == "segmented"; }

// rows_scanned and candidates, each where the path has it.
void WriteCounts(JsonWriter& w, const ShortPlan& plan) {
  std::string_view path = plan.path;
  if (!IndexPath(path)) w.Member("rows_scanned", plan.rows_scanned);
  if (path == "exact" || path == "quantized") return;
  w.Key("candidates");
  JsonWriter::Scope candidates = w.Object();
  w.Member("surfaced", plan.surfaced);
  w.Member("survived", plan.survived);
  w.Member("dropped_out_of_scope", plan.dropped_out_of_scope);
  w.Member("dropped_stale", plan.dropped_stale);
  w.Member("dropped_filtered", plan.dropped_filtered);
  w.Member("dropped_min_score", plan.dropped_min_score);
}

}  // namespace

ShortPlan ShortPlanOf(const QueryPlan& plan) {
  const SearchTrace& t = plan.trace;
  return ShortPlan{.path = plan.path,
                   .total_ns = plan.total_ns,
                   .rows_scanned = t.rows_scanned,
                   .surfaced = t.surfaced,
                   .survived = t.survived,
                   .dropped_out_of_scope = t.dropped_out_of_scope,
                   .dropped_stale = t.dropped_stale,
                   .dropped_filtered = t.dropped_filtered,
                   .dropped_min_score = t.dropped_min_score};
}

std::string CancelToken::plan_summary() const {
  ShortPlan plan;
  {
    std::lock_guard<std::mutex> lock(plan_mu_);
    plan = plan_;
  }
  if (plan.path == nullptr) return "";
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope object = w.Object();
    w.Member("path", plan.path);
    w.Member("total_us", Micros(plan.total_ns));
    WriteCounts(w, plan);
  });
}

void WritePlan(JsonWriter& w, const QueryPlan& plan) {
  std::string_view path = plan.path;
  const SearchTrace& t = plan.trace;
  JsonWriter::Scope object = w.Object();
  w.Member("path", plan.path);
  WriteCounts(w, ShortPlanOf(plan));
  if (t.rescore_ns > 0 || t.quantized_passes > 0) w.Member("rows_rescored", t.rescored);
  {
    w.Key("narrowing");
    JsonWriter::Scope narrowing = w.Object();
    constexpr const char* kStates[] = {"inactive", "declined", "narrowed"};
    w.Member("state", kStates[plan.narrowing.state]);
    if (plan.narrowing.state == Narrowing::kNarrowed) w.Member("candidates", plan.narrowing.candidates);
  }
  w.Key("timings");
  JsonWriter::Scope timings = w.Object();
  if (plan.narrowing.state != Narrowing::kInactive) w.Member("narrow_us", Micros(plan.narrow_ns));
  if (t.walks + t.fallbacks > 0 && t.walk_ns > 0) w.Member("walk_us", Micros(t.walk_ns));
  if (t.quantized_passes > 0) w.Member("first_pass_us", Micros(t.first_pass_ns));
  if (t.rescore_ns > 0 || t.quantized_passes > 0) w.Member("rescore_us", Micros(t.rescore_ns));
  if (t.scan_ns > 0 || path == "exact" || path == "ann_prefilter_fallback") w.Member("score_us", Micros(t.scan_ns));
  w.Member("resolve_us", Micros(plan.resolve_ns));
  w.Member("total_us", Micros(plan.total_ns));
}

}  // namespace tessera
