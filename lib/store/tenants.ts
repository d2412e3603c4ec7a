// TenantStores: the stores under one root directory (--namespaced), one per namespace, each opened
// on first use. The open ones form a warm set bounded in bytes: past the bound, the least recently
// used idle ones are closed (their files stay) and the next request opens them again.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { NamespaceEntry, OpenOptions } from '../types';
import { StoreError } from './errors';
import { Store } from './store';

/** Names are one directory under the root: no separators, no `.`/`..`, a bounded length. */
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A tenant's bytes are measured again at most this often (a directory walk, off the event loop). */
const MEASURE_EVERY_MS = 1000;

/** Refuses a namespace name that is not a plain directory name under the root. */
export function checkNamespace(name: string): void {
  if (!NAMESPACE.test(name)) {
    throw new StoreError(
      400,
      `namespace ${JSON.stringify(name.slice(0, 80))} is not valid: use 1 to 64 letters, digits, "_", "-" or ".", starting with a letter or digit (e.g. /ns/acme-prod/...)`,
    );
  }
}

interface Tenant {
  readonly name: string;
  readonly opening: Promise<Store>;
  /** Set once open. */
  store: Store | null;
  /** Requests using it now: it is never closed under them. */
  users: number;
  /** Tick of its last use, for least-recently-used eviction. */
  lastUsed: number;
  /** Bytes of its directory as last measured. */
  bytes: number;
  measuredAt: number;
  measuring: boolean;
  /** A measurement asked for too soon after the last one, due when the interval has passed. */
  remeasure: NodeJS.Timeout | null;
  /** Set while it is being closed: a request for it waits, then opens it again. */
  closing: Promise<void> | null;
}

export interface TenantOptions {
  /** The root directory; each namespace is a store directory below it. */
  root: string;
  /** Open options of every tenant store (its `path` is set per namespace). */
  open: Omit<OpenOptions, 'path' | 'inMemory'>;
  /** The warm set's bound: open tenants' bytes above it close the least recently used idle ones. */
  warmBytes: number;
  /** A tenant failed to flush or close on eviction (its acknowledged writes are durable anyway). */
  onCloseError?(name: string, err: unknown): void;
}

export class TenantStores {
  private readonly tenants = new Map<string, Tenant>();
  private tick = 0;
  /** Measured bytes of the tenants open and not closing: what the bound is held against. */
  private openBytes = 0;

  constructor(private readonly options: TenantOptions) {}

  /**
   * The open store of a namespace, opening it on first use; concurrent first requests share one
   * open. Each acquire must be paired with a `release` once the request is answered.
   */
  async acquire(name: string): Promise<Store> {
    checkNamespace(name);
    for (;;) {
      const tenant = this.tenants.get(name) ?? this.admit(name);
      if (tenant.closing) {
        await tenant.closing;
        continue;
      }
      tenant.users++;
      tenant.lastUsed = ++this.tick;
      try {
        return await tenant.opening;
      } catch (err) {
        tenant.users--;
        throw err;
      }
    }
  }

  /** Ends a use begun by `acquire`; the tenant's size is measured again and the warm set trimmed. */
  release(name: string): void {
    const tenant = this.tenants.get(name);
    if (!tenant) return;
    tenant.users--;
    this.measure(tenant);
    this.trim();
  }

  /** The store of a namespace a request holds (acquired and not yet released). */
  held(name: string): Store {
    const store = this.tenants.get(name)?.store;
    if (!store) throw new StoreError(503, `namespace ${name} is not open`);
    return store;
  }

  /** The stores open now. */
  openStores(): Store[] {
    return [...this.tenants.values()].flatMap((t) => (t.store && !t.closing ? [t.store] : []));
  }

  /** GET /namespaces: the tenants admitted to the warm set, in name order. Opens nothing. */
  entries(): NamespaceEntry[] {
    return [...this.tenants.values()]
      .filter((t) => t.closing === null)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((t) => {
        const status = t.store?.cluster();
        return {
          name: t.name,
          bytes: t.bytes,
          role: status?.role ?? null,
          fenced: status?.fenced ?? null,
          staleness_secs: status?.staleness_secs ?? null,
        };
      });
  }

  /** Closes every tenant (shutdown). Resolves once all are closed; the first failure rejects after that. */
  async closeAll(): Promise<void> {
    const results = await Promise.allSettled([...this.tenants.values()].map((t) => t.closing ?? this.close(t)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  private admit(name: string): Tenant {
    const { backupTo } = this.options.open;
    // A tenant's backups live in the root's target under the tenant's name.
    const backups = backupTo === undefined ? {} : { backupTo: `${backupTo.replace(/\/+$/, '')}/${name}` };
    const opening = Store.open({ ...this.options.open, ...backups, path: path.join(this.options.root, name) }).catch((err) => {
      throw err instanceof StoreError ? new StoreError(err.status, `namespace ${name}: ${err.message}`) : err;
    });
    const tenant: Tenant = { name, opening, store: null, users: 0, lastUsed: 0, bytes: 0, measuredAt: 0, measuring: false, remeasure: null, closing: null };
    this.tenants.set(name, tenant);
    opening.then(
      (store) => {
        tenant.store = store;
        this.measure(tenant);
      },
      // A refused open is not remembered: the next request tries again.
      () => this.tenants.delete(name),
    );
    return tenant;
  }

  /**
   * Measures the tenant's bytes again, or, within MEASURE_EVERY_MS of the last measurement, once
   * that interval has passed: a tenant written to just after it opened and idle since must still
   * count its bytes against the bound.
   */
  private measure(tenant: Tenant): void {
    if (tenant.store === null || tenant.closing || tenant.remeasure) return;
    const wait = tenant.measuring ? MEASURE_EVERY_MS : tenant.measuredAt + MEASURE_EVERY_MS - Date.now();
    if (wait > 0) {
      tenant.remeasure = setTimeout(() => {
        tenant.remeasure = null;
        this.measure(tenant);
      }, wait).unref();
      return;
    }
    tenant.measuring = true;
    directoryBytes(path.join(this.options.root, tenant.name))
      .then((bytes) => {
        if (tenant.closing === null) this.openBytes += bytes - tenant.bytes;
        tenant.bytes = bytes;
        tenant.measuredAt = Date.now();
      })
      .catch(() => undefined)
      .finally(() => {
        tenant.measuring = false;
        this.trim();
      });
  }

  /**
   * Closes idle tenants, least recently used first, while the open ones' bytes exceed the bound.
   * Within the bound (every request ends here) it costs one comparison.
   */
  private trim(): void {
    if (this.openBytes <= this.options.warmBytes) return;
    const idle = [...this.tenants.values()].filter((t) => t.store && !t.closing && t.users === 0);
    for (const tenant of idle.sort((a, b) => a.lastUsed - b.lastUsed)) {
      if (this.openBytes <= this.options.warmBytes) return;
      void this.close(tenant).catch((err) => this.options.onCloseError?.(tenant.name, err));
    }
  }

  private close(tenant: Tenant): Promise<void> {
    if (tenant.remeasure) clearTimeout(tenant.remeasure);
    this.openBytes -= tenant.bytes;
    const closing = (async () => {
      const store = await tenant.opening.catch(() => null);
      await store?.shutdown();
    })().finally(() => {
      if (this.tenants.get(tenant.name) === tenant) this.tenants.delete(tenant.name);
    });
    // Waiters only need to know it is over; the failure goes to the caller.
    tenant.closing = closing.catch(() => undefined);
    return closing;
  }
}

/** Bytes of the files below `dir`. */
async function directoryBytes(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const sizes = await Promise.all(
    entries.map((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return directoryBytes(full);
      return e.isFile()
        ? fs.stat(full).then(
            (s) => s.size,
            () => 0,
          )
        : 0;
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}
