import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { WriterLease } from '../../lib/features/cluster/lease';
import { ObjectStore } from '../../lib/features/cluster/object_store';
import { faultProxy } from '../harness/fault_proxy';
import { radosgwForFile } from '../harness/radosgw';
import { until } from '../harness/until';

// The writer lease against a real radosgw. Lapses need real time (ttl 1.5 s); every wait is on
// an observable event, bounded generously.

const rgw = radosgwForFile();
const key = 'store/lease.json';

function lease(store: ObjectStore, owner: string, ttlMs = 1500): WriterLease {
  return new WriterLease({ store, key, owner, ttlMs, pollMs: 50 });
}

rgw.test('the first acquirer creates the lease at epoch 1 and keeps it renewed; a standby does not get it meanwhile', async (t) => {
  const store = await rgw.bucket(t);
  // A ttl long enough that a loaded machine's slowest renewal never lapses it: this test is about renewing.
  const holder = lease(store, 'a', 4000);
  t.teardown(() => holder.release());
  t.true(await holder.tryAcquire());
  t.is(holder.token, 'a:1');
  const standby = lease(store, 'b', 4000);
  const abort = new AbortController();
  const waiting = standby.waitForLease(abort.signal);
  await until(() => holder.counters.renewed >= 7, 'two ttl worth of renewals', 30_000);
  t.true(holder.held());
  t.is(standby.state, 'idle');
  abort.abort();
  t.is((await waiting.catch((e: Error) => e))?.name, 'AbortError');
  t.deepEqual(holder.counters, { acquired: 1, renewed: holder.counters.renewed, lost: 0, fenced: 0 });
  t.is(JSON.parse((await store.get(key)).body.toString()).epoch, 1);
});

rgw.test('16 racing acquirers: exactly one holds the lease', async (t) => {
  const store = await rgw.bucket(t);
  const racers = Array.from({ length: 16 }, (_, i) => lease(store, `racer-${i}`));
  t.teardown(() => Promise.all(racers.map((r) => r.release())));
  const won = await Promise.all(racers.map((r) => r.tryAcquire()));
  t.is(won.filter(Boolean).length, 1);
  const winner = racers[won.indexOf(true)];
  t.is(JSON.parse((await store.get(key)).body.toString()).owner, winner.token!.split(':')[0]);
});

rgw.test('a holder that stops renewing is taken over after its ttl, and its next renewal latches fenced', async (t) => {
  const store = await rgw.bucket(t);
  const holder = lease(store, 'a');
  t.true(await holder.tryAcquire());
  holder.stop(); // as if paused or crashed
  const standby = lease(store, 'b');
  t.teardown(() => standby.release());
  const from = performance.now();
  await standby.waitForLease();
  const waited = performance.now() - from;
  t.log(`taken over after ${Math.round(waited)} ms (ttl 1500)`);
  t.true(waited >= 1500, 'never before the holder has lapsed');
  t.true(waited < 1500 + 10_000, 'within ttl plus a generous bound');
  t.is(standby.token, 'b:2');
  t.false(holder.held(), 'the old holder knows on its own clock that ttl has passed');
  const fenced = once(holder, 'fenced');
  t.false(await holder.renewNow());
  t.deepEqual(await fenced, ['b:2']);
  t.true(holder.fenced);
  t.is(holder.counters.fenced, 1);
  t.false(await holder.tryAcquire(), 'fenced is permanent');
  t.true(await standby.renewNow());
});

rgw.test('a released lease is taken over at once, long before its ttl, at the next epoch', async (t) => {
  const store = await rgw.bucket(t);
  const holder = lease(store, 'a', 60_000);
  t.true(await holder.tryAcquire());
  const standby = lease(store, 'b', 60_000);
  t.teardown(() => standby.release());
  const abort = new AbortController();
  const waiting = standby.waitForLease(abort.signal);
  t.false(await standby.tryAcquire());
  await holder.release();
  t.is(holder.state, 'released');
  await waiting; // a 60 s ttl: only the release can have let it in (ava's timeout bounds the wait)
  t.is(standby.token, 'b:2');
  t.false(holder.fenced);
});

rgw.test('a renewal whose answer is lost is read back, recognised as ours and adopted, not mistaken for a takeover', async (t) => {
  const direct = await rgw.bucket(t);
  const gw = rgw.gateway();
  const proxy = await faultProxy(Number(new URL(gw.endpoint).port));
  t.teardown(() => proxy.close());
  const store = new ObjectStore({
    endpoint: `http://127.0.0.1:${proxy.port}`,
    bucket: direct.bucket,
    region: gw.region,
    credentials: gw.credentials,
    retries: 0,
  });
  t.teardown(() => store.close());
  const holder = lease(store, 'a', 60_000);
  t.teardown(() => holder.release());
  t.true(await holder.tryAcquire());
  const before = (await direct.head(key)).etag;
  proxy.dropNext = true;
  t.true(await holder.renewNow());
  t.false(proxy.dropNext, 'the answer was dropped');
  t.not((await direct.head(key)).etag, before, 'the unanswered renewal landed');
  t.is(holder.counters.renewed, 1);
  t.true(await holder.renewNow(), 'the adopted ETag is the one the next If-Match needs');
  t.false(holder.fenced);
});

rgw.test("verify() reads the lease object back: true while it shows this holder, false once it shows another, even within this holder's ttl", async (t) => {
  const store = await rgw.bucket(t);
  const holder = lease(store, 'a', 60_000);
  t.teardown(() => holder.release());
  t.true(await holder.tryAcquire());
  t.true(await holder.verify());
  // A successor's lease, as a clock running faster than ours would let one land early.
  await store.put(key, JSON.stringify({ owner: 'b', epoch: 2, ttl_ms: 60_000, released: false, nonce: 'n', written_at: new Date().toISOString() }));
  t.true(holder.held(), 'on its own clock it still holds');
  t.false(await holder.verify());
});
