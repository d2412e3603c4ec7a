// Probes: /health, /ready and /metrics (with the store size gauges). They answer from memory and
// never wait on a store lock, so they stay up while the store is busy or still opening.
import { Gauge, type Registry } from 'prom-client';
import { METRICS_CONTENT_TYPE } from '../contract/routes';
import { countedElsewhere } from '../http/metrics';
import { json, text } from '../http/reply';
import type { Route } from '../http/route';
import type { Store } from '../store/store';
import type { StoreSlot } from '../route_kit/slot';
import { tableRoute } from '../route_kit/table_route';

/**
 * Store size gauges, read from the core's cached footprint at scrape time: no store lock taken.
 * With --namespaced they add up the tenant stores open now (no tenant label: names are unbounded).
 */
function storeGauges(slot: StoreSlot, registry: Registry): void {
  const total = (read: (f: ReturnType<Store['footprintCached']>) => number) => slot.openStores().reduce((sum, store) => sum + read(store.footprintCached()), 0);
  const gauge = (name: string, help: string, read: (f: ReturnType<Store['footprintCached']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(total(read));
      },
    });
  gauge('svc_store_rows', 'Vector slots on disk, superseded ones included', (f) => f.rows);
  gauge('svc_store_dead_rows', 'Rows reclaimable by compaction', (f) => f.dead_rows);
  gauge('svc_store_docs', 'Live records', (f) => f.doc_count);
  gauge('svc_store_collections', 'Collections', (f) => f.collections);
  gauge('svc_store_segments', 'Segments, sealed and in memory, over all collections', (f) => f.segments);
  gauge('svc_index_builds_pending', 'Sealed segments whose vector indexes are queued or building', (f) => f.index_builds_pending);
  gauge('svc_compactions_running', 'Compactions rewriting segments (and building their indexes) now', (f) => f.compactions_running);
  gauge('svc_column_segments', 'Sealed segments whose attributes are read column by column', (f) => f.column_segments);
  const counter = (name: string, help: string, read: (f: ReturnType<Store['footprintCached']>) => number) =>
    countedElsewhere(registry, name, help, () => total(read));
  counter('svc_compactions_total', 'Compactions installed since the store opened', (f) => f.compactions);
  counter('svc_compaction_bytes_total', 'Bytes written by compactions since the store opened', (f) => f.compaction_bytes);
  counter(
    'svc_compaction_graph_rows_reused_total',
    "Rows of merged segments whose HNSW links came from their first input's graph instead of being inserted",
    (f) => f.graph_rows_reused,
  );
  counter('svc_index_graph_rows_inserted_total', 'Rows inserted into HNSW graphs by index builds since the store opened', (f) => f.graph_rows_inserted);
  counter('svc_reads_inline_total', 'Reads cheap enough to run on the thread that received them, without a handoff', (f) => f.reads_inline);
  counter('svc_reads_queued_total', "Reads handed to the core's query threads", (f) => f.reads_queued);
  gauge('svc_derived_indexes_mapped', 'Text postings, filter and id indexes of sealed segments served from their saved files', (f) => f.derived_mapped);
  gauge('svc_derived_indexes_built', 'Text postings, filter and id indexes of sealed segments this process built from rows', (f) => f.derived_built);
}

const poisonedBody = (error: string) => ({ status: 'poisoned', error });

/**
 * Liveness, readiness and the Prometheus scrape; none takes a token, is shed, or has a deadline.
 * `scrape` answers /metrics (a server on several HTTP threads merges theirs); `storeMetrics` false
 * leaves the store's gauges to the thread whose registry has them.
 */
export function probeRoutes(slot: StoreSlot, registry: Registry, scrape = () => registry.metrics(), storeMetrics = true): Route[] {
  if (storeMetrics) storeGauges(slot, registry);
  return [
    tableRoute('health', () => {
      const poison = slot.poisoned();
      return poison ? json(poisonedBody(poison), 503) : text('ok');
    }),
    tableRoute('ready', () => {
      const unready = slot.unready();
      return unready ? json(unready, 503) : text('ok');
    }),
    tableRoute('metrics', async () => text(await scrape(), 200, METRICS_CONTENT_TYPE)),
  ];
}
