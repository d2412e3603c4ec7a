// The tenant stores as an HTTP thread other than the leader sees them (--namespaced with several
// --http-threads): the leader's TenantStores opens, holds, measures and evicts them, once for the
// process; this thread asks it for a namespace's store (held for the request, as a local acquire
// holds it), adopts the shared core store, and releases it through the leader when done.
import { type SharedStore, Store } from '../../store/store';
import { StoreError } from '../../store/errors';
import { checkNamespace, type TenantStores } from '../../store/tenants';
import type { NamespaceEntry } from '../../types';
import type { Answers } from '../../http/threads';

/** What a namespaced slot needs of the tenant stores, here or through the leader. */
export type Tenants = Pick<TenantStores, 'acquire' | 'release' | 'held' | 'openStores'> & { entries(): NamespaceEntry[] | Promise<NamespaceEntry[]> };

/** The leader's side: what the other threads' RemoteTenants ask of its TenantStores. */
export function answerTenants(tenants: TenantStores, answers: Answers): void {
  // A tenant reopened after eviction is a new store, shared anew.
  answers.on('tenants.acquire', async (name) => {
    const store = await tenants.acquire(name as string);
    try {
      return store.share();
    } catch (err) {
      tenants.release(name as string);
      throw err;
    }
  });
  answers.on('tenants.release', (name) => tenants.release(name as string));
  answers.on('tenants.entries', () => tenants.entries());
}

type Ask = (kind: string, payload?: unknown) => Promise<unknown>;

/** The failure the leader answered, as the StoreError it was there. */
const asStoreError = (err: unknown) => (err instanceof StoreError ? err : new StoreError((err as { status?: number }).status ?? 500, (err as Error).message));

export class RemoteTenants implements Tenants {
  /**
   * The store adopted for each namespace held here now, with the requests holding it. Let go when
   * the last one ends: the leader may then evict it, and only the last handle's drop frees it.
   */
  private readonly adopted = new Map<string, { store: Store; users: number }>();

  constructor(private readonly ask: Ask) {}

  async acquire(name: string): Promise<Store> {
    checkNamespace(name);
    const shared = (await this.ask('tenants.acquire', name).catch((err) => Promise.reject(asStoreError(err)))) as SharedStore;
    let entry = this.adopted.get(name);
    if (!entry) {
      try {
        entry = { store: Store.adopt(shared), users: 0 };
      } catch (err) {
        void this.ask('tenants.release', name).catch(() => undefined);
        throw err;
      }
      this.adopted.set(name, entry);
    }
    entry.users++;
    return entry.store;
  }

  release(name: string): void {
    const entry = this.adopted.get(name);
    if (entry && --entry.users === 0) {
      this.adopted.delete(name);
      entry.store.disown();
    }
    void this.ask('tenants.release', name).catch(() => undefined);
  }

  held(name: string): Store {
    const entry = this.adopted.get(name);
    if (!entry || entry.users <= 0) throw new StoreError(503, `namespace ${name} is not open`);
    return entry.store;
  }

  /** The stores' gauges are the leader's: it holds them all. */
  openStores(): Store[] {
    return [];
  }

  async entries(): Promise<NamespaceEntry[]> {
    return (await this.ask('tenants.entries')) as NamespaceEntry[];
  }
}
