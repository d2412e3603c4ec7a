#include "query/stats.h"

#include "tessera/kernels.h"
#include "util/json_writer.h"

namespace tessera {

std::string StatsJson(const Snapshot& snap, const StoreFacts& facts) {
  uint64_t rows = 0, dead = 0, live = 0, text_bytes = 0;
  for (const auto& [name, c] : snap.collections) {
    rows += c->rows;
    dead += c->dead_rows;
    live += c->live_rows;
    for (const SegmentRef& ref : c->segments) text_bytes += ref.indexes->text_bytes();
  }
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("dimension");
  w.UInt(facts.dimension);
  w.Key("distance");
  w.String(MetricName(facts.metric));
  w.Key("ann");
  w.Null();
  w.Key("quantization");
  w.Null();
  w.Key("query_threads");
  w.UInt(facts.query_threads);
  w.Key("mmap");
  w.Bool(facts.mmap);
  w.Key("collections");
  w.BeginArray();
  for (const auto& [name, c] : snap.collections) w.String(name);
  w.EndArray();
  w.Key("footprint");
  w.BeginObject();
  w.Key("rows");
  w.UInt(rows);
  w.Key("dead_rows");
  w.UInt(dead);
  w.Key("dimension");
  w.UInt(facts.dimension);
  w.Key("vector_bytes");
  w.UInt(rows * facts.dimension * sizeof(float));
  w.Key("doc_count");
  w.UInt(live);
  w.EndObject();
  w.Key("text_index_bytes");
  w.UInt(text_bytes);
  w.Key("kernels");
  w.String(ActiveKernels().name);
  w.EndObject();
  return out;
}

}  // namespace tessera
