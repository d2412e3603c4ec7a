// What the replication and fencing tests share: writers shipping to prefix `s` of a bucket,
// successors restoring from it, records of collection c, and an object store whose calls a test
// watches or holds back.
import type { ExecutionContext } from 'ava';
import { restore } from '../../lib/features/cluster/restore';
import { type LeaseProof, Shipper } from '../../lib/features/cluster/shipper';
import type { ObjectStore } from '../../lib/features/cluster/object_store';
import { type OpenOptions, Store, stringifyExact } from '../../lib/index';
import { dir } from './collections';

export { dir };

/** A lease that always holds. */
export const alwaysHeld: LeaseProof = { confirm: async () => true, verify: async () => true };

/** A new store shipping to prefix `s`. */
export async function writer(
  t: ExecutionContext,
  objects: ObjectStore,
  options: { epoch?: number; held?: () => boolean; lease?: LeaseProof; gcGraceMs?: number; open?: Omit<OpenOptions, 'path'> } = {},
) {
  const home = dir(t);
  const store = await Store.open({ dimension: 2, ...options.open, path: home });
  t.teardown(() => store.close());
  const held = async () => options.held?.() ?? true;
  const lease = options.lease ?? { confirm: held, verify: held };
  const shipper = new Shipper({ store, dir: home, objects, prefix: 's', epoch: options.epoch ?? 1, base: null, lease, gcGraceMs: options.gcGraceMs });
  t.teardown(() => shipper.close());
  return { store, shipper, home };
}

/** A writer taking over at `epoch`: it restores what was published into a new directory, opens it and ships from there. */
export async function successor(t: ExecutionContext, objects: ObjectStore, epoch: number) {
  const home = dir(t);
  const base = await restore(objects, 's', home);
  const store = await opened(t, home, false);
  return { store, shipper: new Shipper({ store, dir: home, objects, prefix: 's', epoch, base, lease: alwaysHeld }) };
}

export const records = (from: number, n: number) => ({
  records: Array.from({ length: n }, (_, i) => ({ id: `r${from + i}`, vector: [1, from + i], attrs: { n: { Int: from + i } } })),
});

/** Records `from` to `to` - 1 of collection c, each acknowledged on its own: a log chunk each. */
export async function shipOneByOne({ store, shipper }: { store: Store; shipper: Shipper }, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await store.upsert('c', records(i, 1));
    await shipper.sync();
  }
}

/** Every record of collection c, as the library lists it. */
export const contents = async (store: Store) =>
  Buffer.from(stringifyExact(await store.list({ scope: ['c'], limit: 10_000, order_by: { field: 'n' } }))).toString();

/** The ids of collection c. */
export const ids = async (store: Store) => (await store.list({ scope: ['c'], limit: 10_000 })).map((hit) => (hit as { id: string }).id).sort();

export async function opened(t: ExecutionContext, home: string, readOnly = true): Promise<Store> {
  const store = await Store.open({ path: home, readOnly });
  t.teardown(() => store.close());
  return store;
}

type Hook = (real: (...args: unknown[]) => unknown, ...args: unknown[]) => unknown;

/** `objects` with some methods routed through hooks; each hook gets the real method and the call's arguments. */
export function intercepted(objects: ObjectStore, hooks: Partial<Record<keyof ObjectStore, Hook>>): ObjectStore {
  return new Proxy(objects, {
    get: (target, key, receiver) => {
      const value = Reflect.get(target, key, receiver);
      const hook = hooks[key as keyof ObjectStore];
      if (!hook || typeof value !== 'function') return value;
      return (...args: unknown[]) => hook((...a: unknown[]) => value.apply(target, a), ...args);
    },
  });
}

/** Calls counted while they run: `most` is how many ran at once at the most. */
export function concurrency(): { most: number; around<T>(run: () => T | Promise<T>): Promise<T> } {
  let running = 0;
  const counted = {
    most: 0,
    async around<T>(run: () => T | Promise<T>): Promise<T> {
      counted.most = Math.max(counted.most, ++running);
      try {
        return await run();
      } finally {
        running--;
      }
    },
  };
  return counted;
}

/** Every key under `under`, sorted. */
export async function keys(objects: ObjectStore, under: string): Promise<string[]> {
  const out: string[] = [];
  for await (const { key } of objects.listAll(under)) out.push(key);
  return out.sort();
}
