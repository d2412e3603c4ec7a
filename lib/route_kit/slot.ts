// StoreSlot: where a route finds the store a request addresses. One store (`OneStore`), held once
// it is open, since the server listens (and answers probes) while a large store is still opening;
// or, with --namespaced, the tenant store the request's /ns/{namespace} prefix names (`Tenants`).
import { HttpError } from '../http/errors';
import type { Request } from '../http/request';
import type { Store } from '../store/store';
import type { ClusterStatus } from '../types';

/** /ready's 503 body. */
export interface Unready {
  status?: string;
  error: string;
}

/** Why an open store cannot serve: poisoned, or stale past its bound; null when it can. */
export function storeUnready(store: Store): Unready | null {
  const poison = store.poisoned();
  if (poison) return { status: 'poisoned', error: poison };
  if (store.stale()) {
    const age = Math.floor(store.stalenessMs() / 1000);
    return { error: `stale: not refreshed for ${age} s, past --max-staleness; POST /refresh to catch up` };
  }
  return null;
}

/**
 * `store`, for `req`: a write (Request.writes) the store cannot take now is refused here, before
 * any work, with the status the core answers every write it refuses (409 a Reader, 403 pinned).
 * With the hooks' 401 and `--read-only` 403, the one place a route's access becomes a status.
 */
export function forRequest(req: Request, store: Store): Store {
  if (req.writes) {
    const refusal = store.writeRefusal();
    if (refusal) throw refusal;
  }
  return store;
}

export interface StoreSlot {
  /** The store `req` addresses (forRequest), or a 503 while it is still opening. Never waits. */
  get(req: Request): Store;
  /**
   * The name of the store `req` addresses: '' for the one store, else its namespace. What keeps
   * per-store state apart (an MCP session stays in the namespace that opened it).
   */
  scope(req: Request): string;
  /** The stores open now: what the store size gauges add up. */
  openStores(): Store[];
  /** Why the process cannot serve (/ready's 503 body), or null when it can. */
  unready(): Unready | null;
  /** The poison message /health reports with 503, or null. */
  poisoned(): string | null;
  /** GET /cluster for the store `req` addresses. */
  status(req: Request): ClusterStatus;
  /** On a --namespaced server only: runs `use` on another namespace's store, held open meanwhile. */
  using?<T>(namespace: string, use: (store: Store) => Promise<T>): Promise<T>;
  /**
   * On a --namespaced server only: holds the store `req` addresses for it until `leave(req)`, as its
   * route does (for a request another HTTP thread received and relayed here).
   */
  enter?(req: Request): Promise<void>;
  leave?(req: Request): void;
}

/** Holds the one store once it is open; `waiting` says what it waits for until then. */
export class OneStore implements StoreSlot {
  protected store: Store | null = null;

  constructor(private readonly waiting: () => string = () => 'store is not open yet') {}

  open(store: Store): void {
    this.store = store;
  }

  get(req: Request): Store {
    if (this.store === null) throw new HttpError(503, `${this.waiting()}; retry once GET /ready answers 200`, { retryable: true }, { 'Retry-After': '1' });
    return forRequest(req, this.store);
  }

  scope(): string {
    return '';
  }

  status(req: Request): ClusterStatus {
    return this.get(req).cluster();
  }

  openStores(): Store[] {
    return this.store ? [this.store] : [];
  }

  unready(): Unready | null {
    return this.store === null ? { error: this.waiting() } : storeUnready(this.store);
  }

  poisoned(): string | null {
    return this.store?.poisoned() ?? null;
  }
}
