#include "query/stats.h"

#include "tessera/kernels.h"
#include "util/json_writer.h"

namespace tessera {
namespace {

// {"kind": ..., <each knob that applies to the kind>}, or null when off.
template <typename Config>
void WriteConfig(JsonWriter& w, std::string_view key, const std::optional<Config>& config) {
  w.Key(key);
  if (!config) return w.Null();
  JsonWriter::Scope object = w.Object();
  w.Member("kind", KindName(config->kind));
  for (const auto& [name, value] : KnobValues(*config)) w.Member(name, value);
}

}  // namespace

std::string StatsJson(const Snapshot& snap, const StoreFacts& facts) {
  uint64_t rows = 0, dead = 0, live = 0, text_bytes = 0, segments = 0, code_bytes = 0, ann_bytes = 0, id_bytes = 0, file_read_bytes = 0,
           live_id_bytes = 0;
  std::vector<const CollectionState*> all;
  for (const auto& [name, c] : snap.collections) all.push_back(c.get());
  Snapshot::Reading(all);  // the footprint counts every collection's rows
  for (const auto& [name, c] : snap.collections) {
    segments += c->segments.size();
    rows += c->rows;
    dead += c->dead_rows;
    live += c->live_rows;
    live_id_bytes += c->live_id_table_bytes;
    for (const SegmentRef& ref : c->segments) {
      const SegmentIndexes& indexes = *ref.indexes;
      text_bytes += indexes.text_bytes();
      if (indexes.first_pass()) code_bytes += indexes.first_pass()->bytes();
      if (indexes.ann()) ann_bytes += indexes.ann()->bytes();
      if (indexes.ids()) id_bytes += indexes.ids()->bytes();
      if (ref.segment->reads_rows_from_file()) file_read_bytes += ref.segment->vector_bytes();
    }
  }
  return JsonText([&](JsonWriter& w) {
    JsonWriter::Scope stats = w.Object();
    w.Member("dimension", facts.dimension);
    w.Member("distance", MetricName(facts.metric));
    WriteConfig(w, "ann", facts.ann);
    WriteConfig(w, "quantization", facts.quantization);
    w.Member("query_threads", facts.query_threads);
    w.Member("mmap", facts.mmap);
    w.Key("collections");
    {
      JsonWriter::Scope names = w.Array();
      for (const auto& [name, c] : snap.collections) w.String(name);
    }
    w.Key("footprint");
    {
      JsonWriter::Scope footprint = w.Object();
      w.Member("rows", rows);
      w.Member("dead_rows", dead);
      w.Member("dimension", facts.dimension);
      w.Member("vector_bytes", rows * facts.dimension * sizeof(float));
      w.Member("doc_count", live);
      w.Member("segments", segments);
      w.Member("code_bytes", code_bytes);
      w.Member("ann_index_bytes", ann_bytes);
      w.Member("id_index_bytes", id_bytes);
      w.Member("live_id_table_bytes", live_id_bytes);
      w.Member("vector_bytes_read_from_files", file_read_bytes);
    }
    w.Member("text_index_bytes", text_bytes);
    w.Member("kernels", ActiveKernels().name);
  });
}

}  // namespace tessera
