// TenantStores, the library side of --namespaced: one store per namespace under a root, opened on
// first use, closed least recently used first past the warm-set bound.
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { checkNamespace, StoreError, TenantStores } from '../../lib/index';
import { tempDir } from './helpers';

const tenants = (warmBytes = 1 << 30, root = tempDir('tenants')) => new TenantStores({ root, open: { dimension: 2 }, warmBytes });

/** Runs `use` on the namespace's store, holding it the way a request does. */
async function using<T>(stores: TenantStores, name: string, use: (store: Awaited<ReturnType<TenantStores['acquire']>>) => Promise<T>): Promise<T> {
  const store = await stores.acquire(name);
  try {
    return await use(store);
  } finally {
    stores.release(name);
  }
}

const until = async (holds: () => boolean, what: string) => {
  const deadline = Date.now() + 15_000;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`not so within 15s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

test('checkNamespace accepts plain directory names and refuses the rest with a 400 naming the rule', (t) => {
  for (const ok of ['a', 'acme-prod', 'A.b_c-9', 'x'.repeat(64)]) t.notThrows(() => checkNamespace(ok), ok);
  for (const bad of ['', '.', '..', '.a', '-a', 'a/b', 'a\\b', 'a\0b', 'x'.repeat(65), 'été', 'a b']) {
    const err = t.throws(() => checkNamespace(bad), { instanceOf: StoreError }, JSON.stringify(bad));
    t.is(err?.status, 400);
    t.regex(err?.message ?? '', /is not valid: use 1 to 64 letters/);
  }
});

test('concurrent acquires of a new namespace share one open; entries list it once it is open', async (t) => {
  const stores = tenants();
  t.teardown(() => stores.closeAll());
  const opened = await Promise.all(Array.from({ length: 8 }, () => stores.acquire('t')));
  t.true(opened.every((s) => s === opened[0]));
  for (let i = 0; i < 8; i++) stores.release('t');
  t.like(stores.entries(), [{ name: 't', role: 'Writer', fenced: false, staleness_secs: 0 }]);
  t.deepEqual(stores.openStores(), [opened[0]]);
});

test('past the bound, idle tenants close least recently used first; a held one stays; the next acquire reopens with the data', async (t) => {
  const root = tempDir('tenants');
  const stores = tenants(1, root);
  t.teardown(() => stores.closeAll());
  const held = await stores.acquire('held');
  await using(stores, 'idle', (s) => s.upsert('c', { records: [{ id: 'r', vector: [1, 0] }] }));
  await until(() => stores.entries().every((e) => e.name !== 'idle'), 'idle closed');
  t.deepEqual(
    stores.entries().map((e) => e.name),
    ['held'],
    'held in use: never closed under its user',
  );
  t.is(held.role, 'Writer');
  t.deepEqual(await using(stores, 'idle', async (s) => (await s.get('c', ['r'])).map((r) => r.id)), ['r']);
  stores.release('held');
  await until(() => stores.entries().length === 0, 'both closed once idle');
  t.deepEqual(fs.readdirSync(root).sort(), ['held', 'idle'], 'files stay');
});

test('a tenant written to just after it opened, then idle, counts its bytes against the bound and is closed past it', async (t) => {
  const root = tempDir('tenants');
  const stores = tenants(10_000, root);
  t.teardown(() => stores.closeAll());
  // Opening measures the empty store; the writes come within the measuring interval after it.
  const records = Array.from({ length: 2000 }, (_, i) => ({ id: `r${i}`, vector: [1, i] }));
  await using(stores, 'bulk', async (s) => {
    await until(() => stores.entries()[0]?.bytes > 0, 'the open measured');
    await s.upsert('c', { records });
  });
  await until(() => stores.entries().length === 0, 'bulk measured past the bound and closed');
  t.deepEqual(await using(stores, 'bulk', async (s) => (await s.get('c', ['r1999'])).map((r) => r.id)), ['r1999'], 'reopened with its data');
});

test('a refused open rejects every waiter and is not remembered', async (t) => {
  const root = tempDir('tenants');
  const stores = tenants(1 << 30, root);
  t.teardown(() => stores.closeAll());
  fs.writeFileSync(path.join(root, 'f'), 'x');
  const err = await t.throwsAsync(stores.acquire('f'), { instanceOf: StoreError });
  t.regex(err?.message ?? '', /^namespace f: /);
  t.deepEqual(stores.entries(), []);
  fs.rmSync(path.join(root, 'f'));
  await t.notThrowsAsync(using(stores, 'f', async () => undefined));
});

test('closeAll closes every open tenant: their writer locks are free for another opener', async (t) => {
  const root = tempDir('tenants');
  const first = tenants(1 << 30, root);
  await using(first, 'a', (s) => s.upsert('c', { records: [{ id: 'x', vector: [0, 1] }] }));
  await first.closeAll();
  const second = tenants(1 << 30, root);
  t.teardown(() => second.closeAll());
  t.is(await using(second, 'a', async (s) => s.role), 'Writer');
});
