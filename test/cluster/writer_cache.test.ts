// A cluster writer's bounded local copy (--cache-bytes on a writer or standby; collection_cache.ts,
// the core's hold and release): past the bound the collections used longest ago are let go,
// published and only then removed; a call that needs one fetches it back; a writer whose log
// changed rows of collections it does not hold fetches them before it opens. Nothing acknowledged
// is lost, and every answer is an unbounded copy's. Against a real radosgw.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import type { ObjectStore } from '../../lib/features/cluster/object_store';
import { readCurrent } from '../../lib/features/cluster/current';
import { ClusterNode } from '../../lib/index';
import { call, startServer, tempDir } from '../http/helpers';
import { radosgwForFile } from '../harness/radosgw';
import { answers, COLLECTIONS, dir, records, ROWS } from './collections';

const rgw = radosgwForFile();
// Long enough that a renewal slowed by a loaded machine never lapses.
const TTL_MS = 4000;

function node(t: ExecutionContext, objects: ObjectStore, role: { reader?: boolean; standby?: boolean; cacheBytes?: number }, home = dir(t)) {
  const n = new ClusterNode({
    objects,
    prefix: 's',
    location: 's3://test/s',
    dir: home,
    reader: role.reader === true,
    standby: role.standby === true,
    leaseTtlMs: TTL_MS,
    open: { dimension: 4 },
    ...(role.cacheBytes !== undefined && { cacheBytes: role.cacheBytes }),
  });
  t.teardown(() => n.close().catch(() => undefined));
  return { node: n, home };
}

/** The segment files in a directory, and the collections they belong to by its MANIFEST. */
function heldCollections(home: string): Set<string> {
  const manifest = JSON.parse(fs.readFileSync(path.join(home, 'MANIFEST'), 'utf8')) as { collections: { name: string; segments: { id: number }[] }[] };
  const owner = new Map(manifest.collections.flatMap((c) => c.segments.map((s) => [String(s.id), c.name] as const)));
  const held = new Set<string>();
  for (const name of fs.readdirSync(home)) {
    const m = /^seg-(\d+)\./.exec(name);
    if (m && owner.has(m[1])) held.add(owner.get(m[1])!);
  }
  return held;
}

/** A writer's write, acknowledged once durable in the object store (what the HTTP routes do). */
async function durably(n: ClusterNode, write: () => Promise<unknown>): Promise<void> {
  await write();
  await n.durable();
}

rgw.test(
  'past --cache-bytes a writer lets the collections used longest ago go, publishes, then removes their files; a call that needs one fetches it back',
  async (t) => {
    const objects = await rgw.bucket(t);
    const w = node(t, objects, { cacheBytes: 1 });
    const store = await w.node.start();
    for (const c of COLLECTIONS) {
      await durably(w.node, () => store.upsert(c, records(c, 0, ROWS)));
      await durably(w.node, () => store.flush());
      await w.node.cache?.settleSoon();
    }
    // A bound of one byte: after a publish only the collection used last is held; a call holds
    // what it needs, alone.
    t.deepEqual([...heldCollections(w.home)], ['c']);
    t.is(w.node.cache?.counters.evicted, 2);
    const full = node(t, objects, { reader: true });
    const reader = await full.node.start();
    for (const c of COLLECTIONS) {
      t.is(await answers(store, c), await answers(reader, c), `collection ${c} through the bounded writer`);
      t.deepEqual([...heldCollections(w.home)], [c], 'the collection the call fetched, and no other');
    }
    // Writing to a collection let go fetches it back first.
    await durably(w.node, () => store.upsert('a', records('a', ROWS, 5)));
    await durably(w.node, () => store.delete('b', { ids: ['b0'] }));
    await w.node.cache?.settleSoon();
    t.true(heldCollections(w.home).size <= 1, `within the bound again: ${[...heldCollections(w.home)]}`);
    const fresh = node(t, objects, { reader: true });
    const latest = await fresh.node.start();
    t.is((await latest.list({ scope: ['a'], limit: 10_000 })).length, ROWS + 5);
    t.is((await latest.list({ scope: ['b'], limit: 10_000 })).length, ROWS - 1);
    for (const c of COLLECTIONS) t.is(await answers(store, c), await answers(latest, c), `collection ${c} after writing to released ones`);
  },
);

rgw.test('with room for everything a bounded writer holds every collection it used, and lets none go', async (t) => {
  const objects = await rgw.bucket(t);
  const w = node(t, objects, { cacheBytes: 1 << 30 });
  const store = await w.node.start();
  for (const c of COLLECTIONS) await durably(w.node, () => store.upsert(c, records(c, 0, ROWS)));
  await durably(w.node, () => store.flush());
  await w.node.cache?.settleSoon();
  t.deepEqual([...heldCollections(w.home)].sort(), COLLECTIONS);
  t.is(w.node.cache?.counters.evicted, 0);
});

rgw.test('a bounded writer whose log changed rows of collections it does not hold fetches them before it opens: nothing acknowledged is lost', async (t) => {
  const objects = await rgw.bucket(t);
  const first = node(t, objects, {});
  const writer = await first.node.start();
  for (const c of COLLECTIONS) await durably(first.node, () => writer.upsert(c, records(c, 0, ROWS)));
  await durably(first.node, () => writer.flush());
  // Acknowledged writes left in the published log only.
  await durably(first.node, () => writer.upsert('b', records('b', ROWS, 7)));
  await durably(first.node, () => writer.delete('c', { ids: ['c3'] }));
  // The writer goes away without closing (a crash): its lease lapses, its log stays as shipped.
  const standby = node(t, objects, { standby: true, cacheBytes: 1 });
  const taking = standby.node.start();
  await first.node.lease?.release();
  const store = await taking;
  t.deepEqual([...heldCollections(standby.home)].sort(), ['b', 'c'], 'the collections the log needs, fetched at open');
  t.is((await store.list({ scope: ['b'], limit: 10_000 })).length, ROWS + 7);
  t.is((await store.list({ scope: ['c'], limit: 10_000 })).length, ROWS - 1);
  t.is((await store.list({ scope: ['a'], limit: 10_000 })).length, ROWS, 'the other collection is fetched when read');
});

rgw.test(
  'tessera serve --cluster --cache-bytes: a writer killed with SIGKILL loses nothing it acknowledged, and its bounded successor serves it all',
  async (t) => {
    const bucket = (await rgw.bucket(t)).bucket;
    const gateway = rgw.gateway();
    const env = gateway.env;
    const prefix = `store-${randomBytes(3).toString('hex')}`;
    const args = (...more: string[]) => [
      '--cluster',
      `s3://${bucket}/${prefix}`,
      '--cluster-endpoint',
      gateway.endpoint,
      '--lease-ttl',
      `${TTL_MS / 1000}s`,
      '--data',
      tempDir(),
      '--cache-bytes',
      '1KiB',
      ...more,
    ];
    const writer = await startServer(args(), env);
    t.teardown(() => writer.stop());
    const acked = new Map<string, number>();
    for (let round = 0; round < 12; round++) {
      const c = COLLECTIONS[round % 3];
      const body = records(c, round * 10, 40);
      t.is((await call(writer, 'POST', `/collections/${c}/upsert`, body)).status, 200);
      acked.set(c, Math.max(acked.get(c) ?? 0, round * 10 + 40));
      if (round % 4 === 3) t.is((await call(writer, 'POST', '/flush')).status, 200);
    }
    const metrics = await (await fetch(`${writer.url}/metrics`)).text();
    t.regex(metrics, /svc_cache_evictions_total [1-9]/, 'collections were let go past the bound');
    await writer.stop('SIGKILL');
    const successor = await startServer(args('--standby'), env);
    t.teardown(() => successor.stop());
    for (const c of COLLECTIONS) {
      const listed = (await call(successor, 'POST', '/list', { scope: [c], limit: 10_000 })).json as { id: string }[];
      const expected = new Set<string>();
      for (let round = 0; round < 12; round++) if (COLLECTIONS[round % 3] === c) for (let i = 0; i < 40; i++) expected.add(`${c}${round * 10 + i}`);
      t.deepEqual(listed.map((h) => h.id).sort(), [...expected].sort(), `collection ${c}`);
    }
  },
);

/** Every file the published manifest needs is named by CURRENT and is in the object store. */
async function publishedWhole(t: ExecutionContext, objects: ObjectStore): Promise<void> {
  const current = await readCurrent(objects, 's');
  if (!current) return t.fail('nothing published');
  const manifest = JSON.parse(current.record.manifest) as { collections: { segments: { id: number; deletions: string }[] }[] };
  for (const { segments } of manifest.collections) {
    for (const { id, deletions } of segments) {
      for (const name of [`seg-${id}.rows`, ...(deletions ? [deletions] : [])]) {
        const key: string | undefined = current.record.files[name];
        t.truthy(key, `CURRENT names ${name}`);
        if (key) t.true((await objects.get(key)).body.length > 0, `${key} is in the object store`);
      }
    }
  }
}

rgw.test('a bounded writer that drops a collection it does not hold, compacts and crashes leaves a published state every member opens', async (t) => {
  const objects = await rgw.bucket(t);
  const w = node(t, objects, { cacheBytes: 1 });
  const store = await w.node.start();
  for (const c of COLLECTIONS) await durably(w.node, () => store.upsert(c, records(c, 0, ROWS)));
  await durably(w.node, () => store.flush());
  await w.node.cache?.settleSoon();
  t.false(heldCollections(w.home).has('a'), 'a is not held');
  await durably(w.node, () => store.dropCollection('a'));
  await durably(w.node, () => store.upsert('c', records('c', 0, 50)));
  await durably(w.node, () => store.compact());
  await w.node.cache?.settleSoon();
  await publishedWhole(t, objects);
  // The writer goes away without closing; an unbounded reader and standby open what it published.
  await w.node.lease?.release();
  const full = node(t, objects, { reader: true });
  const reader = await full.node.start();
  t.deepEqual(await reader.collections(), ['b', 'c']);
  const standby = node(t, objects, { standby: true });
  const successor = await standby.node.start();
  t.is((await successor.list({ scope: ['b'], limit: 10_000 })).length, ROWS);
  t.is((await successor.list({ scope: ['c'], limit: 10_000 })).length, ROWS);
});

rgw.test(
  'a bounded member restarted over its directory holds what it left there and, when its log needs another collection, fetches it too before opening',
  async (t) => {
    const objects = await rgw.bucket(t);
    const first = node(t, objects, {});
    const writer = await first.node.start();
    for (const c of COLLECTIONS) await durably(first.node, () => writer.upsert(c, records(c, 0, ROWS)));
    await durably(first.node, () => writer.flush());
    // A bounded reader over a directory of its own holds b and c there (room for two collections).
    const sizes = fs
      .readdirSync(first.home)
      .filter((n) => n.startsWith('seg-'))
      .map((n) => fs.statSync(path.join(first.home, n)).size);
    const bound = Math.ceil((sizes.reduce((a, b) => a + b, 0) / COLLECTIONS.length) * 2.5);
    const home = dir(t);
    const warm = node(t, objects, { reader: true, cacheBytes: bound }, home);
    const warmStore = await warm.node.start();
    await warmStore.list({ scope: ['b'], limit: 1 });
    await warmStore.list({ scope: ['c'], limit: 1 });
    await warm.node.close();
    t.deepEqual([...heldCollections(home)].sort(), ['b', 'c']);
    // The writer's log now needs a; it goes away without closing.
    await durably(first.node, () => writer.upsert('a', records('a', ROWS, 4)));
    await first.node.lease?.release();
    const bounded = node(t, objects, { standby: true, cacheBytes: bound }, home);
    const store = await bounded.node.start();
    t.is((await store.list({ scope: ['a'], limit: 10_000 })).length, ROWS + 4);
    for (const c of ['b', 'c']) t.is((await store.list({ scope: [c], limit: 10_000 })).length, ROWS, `collection ${c}`);
  },
);
