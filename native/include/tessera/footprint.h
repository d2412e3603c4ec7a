// Counters the store keeps current as it commits, builds and reads, readable without any lock
// (metrics, /stats' footprint).
#pragma once
#include <atomic>
#include <cstdint>

namespace tessera {

// Row counts as of the last commit, segments whose vector indexes are queued or building, and the
// text, filter and id parts of sealed segments served from their saved files (mapped) or built in
// memory by this process (built).
struct FootprintCounters {
  std::atomic<uint64_t> rows{0}, dead_rows{0}, doc_count{0}, collections{0}, segments{0}, index_builds_pending{0};
  // Compactions installed since open, and the bytes they wrote; whether one is rewriting now.
  std::atomic<uint64_t> compactions{0}, compaction_bytes{0}, compactions_running{0};
  // Rows of merged segments whose graph links came from their first input's graph (not inserted).
  std::atomic<uint64_t> graph_rows_reused{0};
  // Rows inserted into HNSW graphs by builds (seals', merges', a reopen's), taken-over ones not.
  std::atomic<uint64_t> graph_rows_inserted{0};
  std::atomic<uint64_t> derived_mapped{0}, derived_built{0};
  // Sealed segments whose attributes are read column by column (their column file opened).
  std::atomic<uint64_t> column_segments{0};
  // Reads run where they were prepared (cheap enough, see kInlineMaxBytes) and on the query threads.
  std::atomic<uint64_t> reads_inline{0}, reads_queued{0};
};

}  // namespace tessera
