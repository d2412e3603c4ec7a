// Cluster mode behind the HTTP routes: the slot that finds the node's store (503 while a standby
// waits or a reader waits for a first publish), and write routes that answer only once the write
// is durable in the object store.
import { Gauge, type Registry } from 'prom-client';
import { countedElsewhere } from '../../http/metrics';
import { OneStore, type Unready } from '../../route_kit/slot';
import { HttpError } from '../../http/errors';
import type { Route } from '../../http/route';
import type { ClusterStatus } from '../../types';
import type { CollectionCache } from './collection_cache';
import { ObjectStoreError, transient } from './errors';
import type { GarbageCollector } from './garbage';
import type { WriterLease } from './lease';
import type { ClusterNode } from './node';
import { Fenced, Unconfirmed } from './shipper';

/** The node's store once it serves (the CLI opens the slot then); until then, what it waits for. */
export class ClusterSlot extends OneStore {
  constructor(private readonly node: ClusterNode) {
    super(() => node.waiting ?? 'starting');
  }

  status(): ClusterStatus {
    return this.node.status();
  }

  unready(): Unready | null {
    if (this.store !== null && this.node.fenced) return { error: 'fenced: another writer took the writer lease; this instance must be replaced' };
    return super.unready();
  }
}

/** Why a write was not acknowledged, as the answer a client can act on. */
function notDurable(err: unknown): unknown {
  if (err instanceof Fenced) return new HttpError(503, err.message, { retryable: false });
  if (err instanceof Unconfirmed) return new HttpError(503, err.message, { retryable: true }, { 'Retry-After': '1' });
  if (err instanceof ObjectStoreError) {
    return new HttpError(
      503,
      `the write was applied here but is not acknowledged: the object store failed (${err.message}); retrying it is safe`,
      { retryable: true },
      { 'Retry-After': '1' },
    );
  }
  return err;
}

/** A writer's routes: each write answers once `node.durable()` says it is in the object store. */
export function durableRoutes(routes: Route[], node: ClusterNode): Route[] {
  return routes.map((route): Route => {
    if (route.access !== 'write' && !route.writeWhen && !route.writeTimeoutWhen) return route;
    return {
      ...route,
      handle: async (req) => {
        const writes = route.access === 'write' || route.writeWhen?.(req) === true || route.writeTimeoutWhen?.(req) === true;
        if (!writes) return route.handle(req);
        if (node.fenced)
          throw new HttpError(503, 'this writer was superseded (fenced): every write is refused; send writes to the current writer', { retryable: false });
        const reply = await route.handle(req);
        try {
          await node.durable();
        } catch (err) {
          throw notDurable(err);
        }
        return reply;
      },
    };
  });
}

/**
 * Every route of a member: an object store that fails a call in a way a retry can cure (a refresh
 * that meets an object the writer collected, no answer, a 5xx) answers 503 `retryable`; the member
 * goes on serving the state it had, and the retry reads the newest CURRENT. A refusal (403, say)
 * stays a fault of ours.
 */
export function objectStoreFailures(routes: Route[]): Route[] {
  const retryable = (err: unknown): never => {
    if (!transient(err)) throw err;
    throw new HttpError(503, `the object store failed (${(err as Error).message}); nothing changed here, retry`, { retryable: true }, { 'Retry-After': '1' });
  };
  return routes.map(
    (route): Route => ({
      ...route,
      // A reply answered at once stays so: only a failure takes the detour.
      handle: (req) => {
        try {
          const reply = route.handle(req);
          return reply instanceof Promise ? reply.catch(retryable) : reply;
        } catch (err) {
          return retryable(err);
        }
      },
    }),
  );
}

/** The lease counters /metrics reports (0 outside cluster mode): acquired, renewed, lost, fenced. */
export function leaseMetrics(registry: Registry, lease: () => WriterLease | null): void {
  const kinds = {
    acquired: 'Writer leases acquired',
    renewed: 'Writer lease renewals that landed',
    lost: 'Times the writer lease lapsed unconfirmed',
    fenced: 'Times this writer found itself superseded',
  };
  for (const [kind, help] of Object.entries(kinds) as [keyof WriterLease['counters'], string][])
    countedElsewhere(registry, `svc_lease_${kind}_total`, help, () => lease()?.counters[kind] ?? 0);
}

/** A writer's sweep (0 elsewhere): objects it deleted, sweeps it stopped because CURRENT or the lease was no longer its own, sweeps that failed. */
export function sweepMetrics(registry: Registry, garbage: () => GarbageCollector | null): void {
  countedElsewhere(registry, 'svc_gc_deleted_total', 'Objects no published state named that this writer deleted', () => garbage()?.counters.deleted ?? 0);
  countedElsewhere(
    registry,
    'svc_gc_refused_total',
    'Sweeps this writer stopped before deleting: CURRENT or the writer lease was no longer its own',
    () => garbage()?.counters.refused ?? 0,
  );
  countedElsewhere(
    registry,
    'svc_gc_failed_total',
    'Sweeps that failed: the object store refused or failed a listing or a delete (repeated after the next publish)',
    () => garbage()?.counters.failed ?? 0,
  );
}

/** A --cache-bytes member's cache (0 otherwise): bytes held, collections fetched and removed. */
export function cacheMetrics(registry: Registry, cache: () => CollectionCache | null): void {
  new Gauge({
    name: 'svc_cache_bytes',
    help: 'Bytes of the segment files a --cache-bytes member holds',
    registers: [registry],
    collect() {
      this.set(cache()?.heldBytes ?? 0);
    },
  });
  countedElsewhere(
    registry,
    'svc_cache_fetches_total',
    'Collections a --cache-bytes member fetched on a call that needed them',
    () => cache()?.counters.fetched ?? 0,
  );
  countedElsewhere(registry, 'svc_cache_evictions_total', 'Collections a --cache-bytes member removed past its bound', () => cache()?.counters.evicted ?? 0);
}
