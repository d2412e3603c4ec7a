// Fencing of every object-store mutation and bounded catching up, through a real radosgw
// (lib/features/cluster/garbage.ts, current.ts, restore.ts): a writer's sweep deletes nothing once
// CURRENT or the lease is not its own, nor what has been unnamed for less than the grace period; a
// successor claims CURRENT before it opens, which fences its predecessor's publishes; a restore can
// be abandoned mid-read, and reads a long open log part listed and in parallel.
import { performance } from 'node:perf_hooks';
import { claimCurrent, readCurrent } from '../../lib/features/cluster/current';
import type { ObjectInfo, ObjectStore } from '../../lib/features/cluster/object_store';
import { restore } from '../../lib/features/cluster/restore';
import { Fenced, Shipper } from '../../lib/features/cluster/shipper';
import { CHUNK_CONCURRENCY } from '../../lib/features/cluster/transfers';
import type { Store } from '../../lib/index';
import { radosgwForFile } from '../harness/radosgw';
import { until } from '../harness/until';
import { alwaysHeld, concurrency, dir, ids, intercepted, keys, opened, records, shipOneByOne, writer } from './shipping';

const rgw = radosgwForFile();

const rIds = (from: number, n: number) => Array.from({ length: n }, (_, i) => `r${from + i}`);

/** Every key the published CURRENT names that the bucket lacks (log parts: the chunks a closed part counts). */
async function namedButMissing(objects: ObjectStore): Promise<string[]> {
  const current = await readCurrent(objects, 's');
  const present = new Set(await keys(objects, 's/'));
  const named = [...Object.values(current?.record.files ?? {})];
  for (const part of current?.record.logs ?? [])
    for (let seq = 0; seq < (part.chunks ?? 0); seq++) named.push(`${part.prefix}${String(seq).padStart(12, '0')}`);
  return named.filter((key) => !present.has(key));
}

/** A publish: a chunk in the open log part, then a checkpoint's new generation, which leaves that part unnamed. */
const publisher =
  ({ store, shipper }: { store: Store; shipper: Shipper }) =>
  async (from: number) => {
    await store.upsert('c', records(from, 5));
    await shipper.sync();
    await store.flush();
    await shipper.sync();
  };

/** A successor at `epoch`: restores into a new directory, claims CURRENT, opens and ships from there. */
async function claimant(t: Parameters<typeof writer>[0], objects: ObjectStore, epoch: number) {
  const home = dir(t);
  const restored = await restore(objects, 's', home);
  const base = restored && (await claimCurrent(objects, 's', restored, epoch));
  t.truthy(base, 'the claim landed');
  const store = await opened(t, home, false);
  const shipper = new Shipper({ store, dir: home, objects, prefix: 's', epoch, base, lease: alwaysHeld, gcGraceMs: 0 });
  t.teardown(() => shipper.close());
  return { store, shipper };
}

rgw.test(
  'a writer paused between a publish and its sweep deletes nothing its successor published: the sweep lists, then finds CURRENT not its own',
  async (t) => {
    const objects = await rgw.bucket(t);
    let pauseAfterPublish = false;
    let paused = false;
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let deletes = 0;
    const stale = intercepted(objects, {
      put: async (real, ...args) => {
        const put = await real(...args);
        if (pauseAfterPublish && String(args[0]).endsWith('/CURRENT')) paused = true;
        return put;
      },
      // The pause lands after a publish, before its sweep lists: what the SIGSTOP did.
      listAll: (real, ...args) =>
        (async function* () {
          if (paused) await resumed;
          yield* real(...args) as AsyncGenerator<ObjectInfo>;
        })(),
      delete: (real, ...args) => {
        deletes++;
        return real(...args);
      },
    });
    const a = await writer(t, stale, { gcGraceMs: 0 });
    await a.store.upsert('c', records(0, 10));
    await a.shipper.sync();
    await a.store.flush();
    pauseAfterPublish = true;
    await a.shipper.sync();

    const b = await claimant(t, objects, 2);
    await b.store.upsert('c', records(10, 10));
    await b.shipper.sync();
    await b.store.flush();
    await b.shipper.sync();
    await b.store.upsert('c', records(20, 5));
    await b.shipper.sync();

    resume();
    await a.shipper.swept();
    t.is(deletes, 0);
    t.true(a.shipper.garbage.counters.refused >= 1, 'its sweep found CURRENT not its own');
    // Its next publish finds CURRENT changed: fenced.
    await a.store.upsert('c', records(100, 1));
    await a.store.flush();
    await t.throwsAsync(a.shipper.sync(), { instanceOf: Fenced });
    t.deepEqual(await namedButMissing(objects), []);
    const copy = dir(t);
    await restore(objects, 's', copy);
    t.deepEqual(await ids(await opened(t, copy)), rIds(0, 25).sort());
  },
);

rgw.test("a sweep deletes nothing while the lease object does not read as this writer's, though CURRENT is still its own", async (t) => {
  const objects = await rgw.bucket(t);
  let leaseReadsOurs = true;
  const { store, shipper } = await writer(t, objects, { gcGraceMs: 0, lease: { confirm: async () => true, verify: async () => leaseReadsOurs } });
  const publish = publisher({ store, shipper });
  await publish(0);
  leaseReadsOurs = false;
  await publish(5);
  await shipper.swept();
  t.is(shipper.garbage.counters.deleted, 0);
  t.true(shipper.garbage.counters.refused >= 1);
  leaseReadsOurs = true;
  await publish(10);
  await shipper.swept();
  t.true(shipper.garbage.counters.deleted > 0, 'with the lease its own again, the superseded objects go');
  t.deepEqual(await namedButMissing(objects), []);
});

rgw.test('an object unnamed for less than the grace period stays; a sweep past the grace period deletes it', async (t) => {
  const writing = async (gcGraceMs: number) => {
    const objects = await rgw.bucket(t);
    const { store, shipper } = await writer(t, objects, { gcGraceMs });
    return { objects, shipper, publish: publisher({ store, shipper }) };
  };
  const long = await writing(60_000);
  await long.publish(0);
  const kept = await keys(long.objects, 's/log/');
  await long.publish(5);
  await long.shipper.swept();
  t.true(kept.length > 0);
  t.deepEqual(
    (await keys(long.objects, 's/log/')).filter((key) => kept.includes(key)),
    kept,
    'within the grace period nothing goes',
  );
  t.is(long.shipper.garbage.counters.deleted, 0);

  const graceMs = 300;
  const short = await writing(graceMs);
  await short.publish(0);
  const doomed = await keys(short.objects, 's/log/');
  await short.shipper.swept(); // the sweep that first saw them unnamed
  const seen = performance.now();
  await until(() => performance.now() - seen > graceMs, 'the grace period passed', 10_000);
  await short.publish(5);
  await short.shipper.swept();
  const left = await keys(short.objects, 's/log/');
  t.deepEqual(
    doomed.filter((key) => left.includes(key)),
    [],
    'past the grace period they are deleted',
  );
  t.deepEqual(await namedButMissing(short.objects), []);
});

rgw.test(
  "a successor claims CURRENT before it opens: its predecessor's next publish is fenced, and a chunk it put after the claim is never read",
  async (t) => {
    const objects = await rgw.bucket(t);
    const a = await writer(t, objects);
    await a.store.upsert('c', records(0, 10));
    await a.shipper.sync();
    const b = await claimant(t, objects, 2);
    // A does not know yet: its next round puts a chunk to its own log part, past the claimed count.
    await a.store.upsert('c', records(100, 1));
    await a.shipper.sync();
    await a.store.flush();
    await t.throwsAsync(a.shipper.sync(), { instanceOf: Fenced, message: /CURRENT changed under this writer/ });
    await b.store.upsert('c', records(10, 5));
    await b.shipper.sync();
    const copy = dir(t);
    await restore(objects, 's', copy);
    t.deepEqual(await ids(await opened(t, copy)), rIds(0, 15).sort());
    t.deepEqual(await ids(b.store), rIds(0, 15).sort());
  },
);

rgw.test('a restore abandoned mid-read leaves the directory as it was; the next one brings it to the newest state', async (t) => {
  const objects = await rgw.bucket(t);
  const { store, shipper } = await writer(t, objects);
  await shipOneByOne({ store, shipper }, 0, 10);
  const copy = dir(t);
  const first = await restore(objects, 's', copy);
  await shipOneByOne({ store, shipper }, 10, 40);
  const abandon = new AbortController();
  let chunkGets = 0;
  const aborting = intercepted(objects, {
    get: (real, ...args) => {
      if (String(args[0]).includes('/log/') && ++chunkGets === 5) abandon.abort(new Error('abandoned'));
      return real(...args);
    },
  });
  await t.throwsAsync(restore(aborting, 's', copy, { previous: first, signal: abandon.signal }), { message: 'abandoned' });
  t.deepEqual(await ids(await opened(t, copy)), rIds(0, 10).sort(), 'the directory as the first restore left it');
  await restore(objects, 's', copy, { previous: first });
  t.deepEqual(await ids(await opened(t, copy)), rIds(0, 40).sort());
});

rgw.test(
  'a follower far behind reads an open log part with one listing and its chunks several at once; a claimed state costs it no chunk read again',
  async (t) => {
    const objects = await rgw.bucket(t);
    const { store, shipper } = await writer(t, objects);
    await store.upsert('c', records(0, 1));
    await shipper.sync();
    const copy = dir(t);
    const first = await restore(objects, 's', copy);
    await shipOneByOne({ store, shipper }, 1, 41);
    let lists = 0;
    let chunkGets = 0;
    const reads = concurrency();
    const counting = intercepted(objects, {
      listAll: (real, ...args) => {
        lists++;
        return real(...args);
      },
      get: (real, ...args) => {
        if (!String(args[0]).includes('/log/')) return real(...args);
        chunkGets++;
        return reads.around(() => real(...args));
      },
    });
    const caughtUp = await restore(counting, 's', copy, { previous: first });
    t.is(lists, 1);
    t.is(chunkGets, 40, 'each new chunk once');
    t.true(reads.most > 1 && reads.most <= CHUNK_CONCURRENCY, `at most ${CHUNK_CONCURRENCY} at once, more than one (${reads.most})`);
    t.deepEqual(await ids(await opened(t, copy)), rIds(0, 41).sort());

    // A successor's claim closes the part at the chunks it read: a follower that read them all reads none again.
    const claimed = caughtUp && (await claimCurrent(objects, 's', caughtUp, 2));
    t.truthy(claimed);
    chunkGets = 0;
    await restore(counting, 's', copy, { previous: caughtUp });
    t.is(chunkGets, 0);
    t.deepEqual(await ids(await opened(t, copy)), rIds(0, 41).sort());
  },
);

rgw.test('a sweep running beside a publish spares what that publish uploaded before its CURRENT lands', async (t) => {
  const objects = await rgw.bucket(t);
  let holdNextSweep = false;
  let currentPuts = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let shipper!: Shipper;
  const racing = intercepted(objects, {
    listAll: (real, ...args) =>
      (async function* () {
        if (holdNextSweep) await released;
        yield* real(...args) as AsyncGenerator<ObjectInfo>;
      })(),
    // The second publish's CURRENT waits until the sweep after the first has listed its uploads and deleted what it would.
    put: async (real, ...args) => {
      if (holdNextSweep && String(args[0]).endsWith('/CURRENT') && ++currentPuts === 2) {
        release();
        await shipper.swept();
      }
      return real(...args);
    },
  });
  const w = await writer(t, racing, { gcGraceMs: 0 });
  shipper = w.shipper;
  await w.store.upsert('c', records(0, 10));
  await shipper.sync();
  await w.store.flush();
  await shipper.swept();
  holdNextSweep = true;
  await shipper.sync(); // publishes the checkpoint; its sweep waits to list
  await w.store.upsert('c', records(10, 10));
  await w.store.flush();
  await shipper.sync(); // uploads the new segment, then lets the sweep run before its CURRENT
  t.true(shipper.garbage.counters.deleted > 0, 'the sweep ran and deleted the superseded log');
  t.deepEqual(await namedButMissing(objects), []);
  const copy = dir(t);
  await restore(objects, 's', copy);
  t.deepEqual(await ids(await opened(t, copy)), rIds(0, 20).sort());
});
