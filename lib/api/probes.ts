import { Gauge, type Registry } from 'prom-client';
import { HttpError } from '../http/errors';
import { METRICS_CONTENT_TYPE } from '../http/metrics';
import { json, text } from '../http/reply';
import { type Route, route } from '../http/route';
import type { Store } from '../index';
import { type StoreSlot, storeRoute } from './store';

/** Store size gauges, read from the core's cached footprint at scrape time: no store lock taken. */
function storeGauges(slot: StoreSlot, registry: Registry): void {
  const gauge = (name: string, help: string, read: (f: ReturnType<Store['footprintCached']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const store = slot.current;
        if (store) this.set(read(store.footprintCached()));
      },
    });
  gauge('svc_store_rows', 'Vector slots on disk, superseded ones included', (f) => f.rows);
  gauge('svc_store_dead_rows', 'Rows reclaimable by compaction', (f) => f.dead_rows);
  gauge('svc_store_docs', 'Live records', (f) => f.doc_count);
  gauge('svc_store_collections', 'Collections', (f) => f.collections);
}

const poisonedBody = (error: string) => ({ status: 'poisoned', error });

/** Probes and introspection. Health, readiness and metrics never wait on the store. */
export function probeRoutes(slot: StoreSlot, registry: Registry): Route[] {
  storeGauges(slot, registry);
  return [
    route({
      method: 'GET',
      path: '/health',
      access: 'probe',
      handle: () => {
        const poison = slot.current?.poisoned();
        return poison ? json(poisonedBody(poison), 503) : text('ok');
      },
    }),
    route({
      method: 'GET',
      path: '/ready',
      access: 'probe',
      handle: () => {
        const store = slot.current;
        if (store === null) return json({ error: 'store is not open yet' }, 503);
        const poison = store.poisoned();
        return poison ? json(poisonedBody(poison), 503) : text('ok');
      },
    }),
    route({
      method: 'GET',
      path: '/metrics',
      access: 'probe',
      handle: async () => text(await registry.metrics(), 200, METRICS_CONTENT_TYPE),
    }),
    storeRoute(slot, { method: 'GET', path: '/stats', access: 'read', call: (store, _req, o) => store.stats(o) }),
    route({
      method: 'GET',
      path: '/cluster',
      access: 'read',
      handle: () => {
        const store = slot.get();
        const reader = store.role === 'Reader';
        return json({
          role: store.role,
          cluster: false,
          holds_writer_handle: !reader,
          fenced: false,
          lease_owner: null,
          commit_version: store.commitVersion(),
          // A single-process reader never refreshes, so its state is as old as its open.
          staleness_secs: reader ? slot.secondsSinceOpen() : 0,
          max_staleness_secs: null,
        });
      },
    }),
    route({
      method: 'GET',
      path: '/versions',
      access: 'read',
      handle: () => json({ commit_version: slot.get().commitVersion(), oldest_readable: null, pinned: null, readable: [] }),
    }),
    route({
      method: 'GET',
      path: '/namespaces',
      access: 'read',
      handle: () => {
        throw new HttpError(404, '/namespaces exists only on a server started with --namespaced');
      },
    }),
  ];
}
