// Compaction (spec "Maintenance", POST /compact; issue 11): dead rows are reclaimed in the
// background and by compact(), small segments merge, nothing a reader can see changes except by
// the writes themselves, and a SIGKILL or a failure at any step of a compaction loses nothing.
import test, { type ExecutionContext } from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type SearchRequest, Store, type StoredRecord } from '../../lib/index';
import { until } from '../harness/until';
import { Child, genBatchBody, genVector, prng, randomVector, rejectsWith, tempDir } from './helpers';

const DIM = 8;

/** The records of collection c as `id=i` strings, in storage order. */
async function contents(store: Store, collection = 'c'): Promise<string[]> {
  return (await store.records(collection)).map((r: StoredRecord) => `${r.id}=${(r.attrs.i as { Int: bigint }).Int}`);
}

/** Upserts records [start, start + count) of tag with attribute i = start + k + shift. */
async function upsertRange(store: Store, tag: string, start: number, count: number, shift = 0): Promise<void> {
  const records = Array.from({ length: count }, (_, k) => ({
    id: `${tag}-${start + k}`,
    vector: genVector(start + k, DIM),
    attrs: { tag: { Str: tag }, i: { Int: start + k + shift } },
  }));
  await store.upsert('c', { records });
}

test('compact() reclaims every dead row: rows equal doc_count, and every record and the storage order are unchanged', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM });
  for (let b = 0; b < 4; b++) {
    await upsertRange(store, 'a', b * 500, 500);
    await store.flush();
  }
  await upsertRange(store, 'a', 0, 300, 10_000); // overwrites across two sealed segments
  await store.delete('c', { ids: ['a-700', 'a-1500', 'a-1999'] });
  await upsertRange(store, 'a', 1000, 50, 20_000); // dead rows in the memory segment too
  await store.delete('c', { ids: ['a-2'] });
  const before = await contents(store);
  const query = { query: genVector(7, DIM), top_k: 20, exact: true };
  const hitsBefore = await store.search(query);
  t.true((await store.stats()).footprint.dead_rows > 0);

  t.deepEqual(await store.compact(), { ok: true });
  const { footprint } = await store.stats();
  t.is(footprint.dead_rows, 0);
  t.is(footprint.rows, footprint.doc_count);
  t.is(footprint.doc_count, 2000 - 4);
  t.deepEqual(await contents(store), before, 'the same records in the same order');
  t.deepEqual(await store.search(query), hitsBefore);
  t.true(store.footprintCached().compactions > 0);

  await store.close();
});

test('compact() on an in-memory store reclaims its dead rows too', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  await upsertRange(store, 'a', 0, 1000);
  await upsertRange(store, 'a', 0, 400, 5);
  await store.delete('c', { ids: ['a-999'] });
  const before = await contents(store);
  t.deepEqual(await store.compact({ expired: false }), { ok: true });
  const { footprint } = await store.stats();
  t.is(footprint.dead_rows, 0);
  t.is(footprint.rows, 999);
  t.deepEqual(await contents(store), before);
  await upsertRange(store, 'a', 2000, 10);
  t.is((await store.stats()).footprint.doc_count, 1009, 'writes go on after it');
});

test('the background merges a run of small segments without being asked', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM });
  for (let b = 0; b < 8; b++) {
    await upsertRange(store, 'a', b * 50, 50);
    await store.flush();
  }
  await store.waitForIndexes(); // background work (index builds and compactions) is done
  const { footprint } = await store.stats();
  t.true(footprint.segments < 8, `${footprint.segments} segments left of 8`);
  t.true(store.footprintCached().compactions > 0);
  t.is(footprint.doc_count, 400);
  t.deepEqual(
    await contents(store),
    Array.from({ length: 400 }, (_, i) => `a-${i}=${i}`),
  );
  await store.close();
});

test('the background does not merge a big segment with a few small ones; the small ones merge once they are enough', async (t) => {
  const dir = tempDir();
  const store = await Store.open({ path: dir, dimension: DIM, ann: 'none' });
  await upsertRange(store, 'a', 0, 20_000);
  await store.flush();
  const big = fs.readdirSync(dir).filter((f) => f.endsWith('.rows'));
  for (let b = 0; b < 3; b++) {
    await upsertRange(store, 'b', b * 500, 500);
    await store.flush();
  }
  await store.waitForIndexes();
  t.is((await store.stats()).footprint.segments, 4, 'a run of four where one holds 20,000 of 21,500 rows stays as it is');
  await upsertRange(store, 'b', 1500, 500);
  await store.flush();
  await store.waitForIndexes();
  t.is((await store.stats()).footprint.segments, 2, 'the four small ones merged into one');
  t.true(
    big.every((f) => fs.existsSync(path.join(dir, f))),
    'the big segment was not rewritten',
  );
  t.is((await store.stats()).footprint.doc_count, 22_000);
  await store.close();
});

test('a sealed segment a third dead is rewritten in the background', async (t) => {
  const dir = tempDir();
  const store = await Store.open({ path: dir, dimension: DIM });
  await upsertRange(store, 'a', 0, 3000);
  await store.flush();
  await upsertRange(store, 'a', 0, 1200, 1);
  await store.flush();
  await store.waitForIndexes();
  const { footprint } = await store.stats();
  t.is(footprint.dead_rows, 0, 'the overwritten rows are gone');
  t.is(footprint.rows, 3000);
  await store.close();
  const reopened = await Store.open({ path: dir });
  t.is((await reopened.stats()).footprint.dead_rows, 0);
  t.deepEqual((await contents(reopened)).slice(0, 2), ['a-1200=1200', 'a-1201=1201']);
  await reopened.close();
});

test('with ANN on, a merged segment gets its index and answers as before', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM, ann: 'hnsw', quantization: 'none' });
  for (let b = 0; b < 4; b++) {
    await upsertRange(store, 'a', b * 1500, 1500);
    await store.flush();
  }
  await upsertRange(store, 'a', 0, 2000, 1);
  await store.compact();
  await store.waitForIndexes();
  const { plan, hits } = await store.search({ query: genVector(3, DIM), top_k: 10, plan: true });
  t.is(plan.path, 'ann', 'every segment, the merged one included, is walked');
  const exact = new Set((await store.search({ query: genVector(3, DIM), top_k: 10, exact: true })).map((h) => h.id));
  t.true(hits.filter((h) => exact.has(h.id)).length >= 8, 'recall@10 against the exact answer');
  await store.close();
});

test('writes and searches while compact() runs: every answer is what the writes alone make it', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: DIM });
  for (let b = 0; b < 6; b++) {
    await upsertRange(store, 's', b * 1000, 1000);
    await upsertRange(store, 'd', b * 100, 100);
    await store.flush();
  }
  await upsertRange(store, 's', 0, 2500, 0); // same values, new rows: a third of the stable set dead
  await store.flush();
  const stable: SearchRequest = { query: genVector(11, DIM), top_k: 50, exact: true, filter: [{ Eq: ['tag', { Str: 's' }] }] };
  const baseline = await store.search(stable);
  const stableRecords = (await contents(store)).filter((r) => r.startsWith('s-'));

  const writes = (async () => {
    for (let b = 0; b < 10; b++) {
      await upsertRange(store, 'n', b * 100, 100);
      await store.delete('c', { ids: Array.from({ length: 10 }, (_, k) => `d-${b * 60 + k}`) });
    }
  })();
  const searches = (async () => {
    for (let i = 0; i < 30; i++) t.deepEqual(await store.search(stable), baseline, `search ${i}`);
  })();
  await Promise.all([store.compact(), writes, searches]);

  const after = await contents(store);
  t.deepEqual(
    after.filter((r) => r.startsWith('s-')),
    stableRecords,
  );
  t.is(after.filter((r) => r.startsWith('n-')).length, 1000);
  const deleted = new Set(Array.from({ length: 10 }, (_, b) => Array.from({ length: 10 }, (_, k) => `d-${b * 60 + k}`)).flat());
  const d = after.filter((r) => r.startsWith('d-')).map((r) => r.split('=')[0]);
  t.is(d.length, 600 - deleted.size);
  t.false(d.some((id) => deleted.has(id)));
  await store.close();
});

test('POST /compact body rules: empty, {}, {expired: false} and {expired: true} compact; anything else is 400 and changes nothing', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  await upsertRange(store, 'a', 0, 10);
  for (const body of ['', ' ', '{}', '{"expired": false}', '{"expired": true}']) t.deepEqual(await store.compact(Buffer.from(body)), { ok: true }, body);
  for (const body of ['{"expired": 1}', '{"expired": "yes"}', '{"expire": true}', '[]', '{"expired": true', 'null']) {
    const e = await rejectsWith(t, store.compact(Buffer.from(body)), 400, body);
    t.regex(e.message, /expired|body|JSON/i, body);
  }
  t.is((await store.stats()).footprint.doc_count, 10);
  t.deepEqual(await store.sweepExpired(), { deleted: 0 }, 'the library sweep exists and finds nothing expired');
});

test('a read-only store refuses compact() with 403 and a Reader with 409', async (t) => {
  const dir = tempDir();
  const writer = await Store.open({ path: dir, dimension: DIM });
  await upsertRange(writer, 'a', 0, 10);
  await writer.flush();
  const readOnly = await Store.open({ path: dir, readOnly: true });
  await rejectsWith(t, readOnly.compact(), 403);
  await rejectsWith(t, readOnly.sweepExpired(), 403);
  const reader = await Store.open({ path: dir });
  const e = await rejectsWith(t, reader.compact(), 409);
  t.regex(e.message, /locked for writing/);
  await Promise.all([readOnly.close(), reader.close(), writer.close()]);
});

// ---- failures and SIGKILL ----

/** Every file of dir that the MANIFEST does not name, besides the store's own fixed files. */
function unnamedFiles(dir: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST'), 'utf8'));
  const named = new Set<string>();
  for (const c of manifest.collections)
    for (const s of c.segments) {
      named.add(`seg-${s.id}`);
      if (s.deletions) named.add(s.deletions);
    }
  return fs.readdirSync(dir).filter((f) => f.startsWith('seg-') && !named.has(f) && !named.has(f.split('.')[0]));
}

for (const point of ['compaction-written', 'compaction-before-manifest', 'compaction-after-manifest']) {
  test(`SIGKILL at ${point}: every acknowledged write is there on reopen and no orphan file is left`, async (t) => {
    const dir = tempDir();
    const child = new Child({ TESSERA_CRASH_AT: point });
    await child.call('open', { options: { path: dir, dimension: DIM } });
    await child.call('upsertGen', { collection: 'c', tag: 'a', start: 0, count: 3000, dim: DIM });
    await child.call('flush');
    // Overwriting half of the sealed segment makes the background compaction start (at this
    // commit or at the checkpoint) and die at the point; replies that arrive were acknowledged.
    const overwrite = child.send('upsertGen', { collection: 'c', tag: 'a', start: 0, count: 1500, dim: DIM });
    const more = child.send('upsertGen', { collection: 'c', tag: 'b', start: 0, count: 100, dim: DIM });
    child.send('flush');
    const { signal } = await child.exited;
    t.is(signal, 'SIGKILL');
    t.regex(child.stderr, new RegExp(`crash point ${point}`));
    const store = await Store.open({ path: dir });
    const bAcked = (await more).ok;
    t.true((await overwrite).ok || !bAcked, 'batches are acknowledged in order');
    const ids = (await store.records('c')).map((r) => r.id).sort();
    const b = Array.from({ length: 100 }, (_, i) => `b-${i}`);
    const aIds = Array.from({ length: 3000 }, (_, i) => `a-${i}`);
    if (bAcked) t.deepEqual(ids, [...aIds, ...b].sort());
    else
      t.deepEqual(
        ids.filter((id) => id.startsWith('a-')),
        aIds.sort(),
      );
    // The reopened writer may start a compaction of its own at once; its output is named only
    // when it installs, so the directory is read once background work is done.
    await store.waitForIndexes();
    t.deepEqual(unnamedFiles(dir), [], 'the writer removed what the crash left behind');
    await store.compact();
    t.is((await store.stats()).footprint.dead_rows, 0);
    await store.close();
  });
}

test('SIGKILL at random moments of a write load that keeps compacting: every acknowledged batch survives', async (t) => {
  const dir = tempDir();
  const rand = prng(77);
  const acked = new Map<string, number>(); // id -> the round that last wrote it
  for (let round = 0; round < 4; round++) {
    const child = new Child();
    await child.call('open', { options: { path: dir, dimension: DIM } });
    const killAfter = 5 + Math.floor(rand() * 25);
    let acks = 0;
    for (let b = 0; b < 40 && acks < killAfter; b++) {
      const start = Math.floor(rand() * 10) * 100;
      const body = genBatchBody(`r${round}`, start, 100, DIM).replaceAll(`"id":"r${round}-`, '"id":"k-');
      const r = await child.send(b % 5 === 4 ? 'flush' : 'upsert', { collection: 'c', body });
      if (r.ok && r.result?.upserted) {
        for (let i = start; i < start + 100; i++) acked.set(`k-${i}`, round);
        acks++;
      }
    }
    await child.kill();
    const store = await Store.open({ path: dir, readOnly: true });
    const records = await store.records('c');
    const byId = new Map(records.map((r) => [r.id, (r.attrs.tag as { Str: string }).Str]));
    for (const [id, r] of acked) t.is(byId.get(id), `r${r}`, `round ${round}: ${id}`);
    t.is(records.length, byId.size, 'one live row per id');
    await store.close();
  }
});

/** A child process with fault injection on, holding 500 records of which 100 were overwritten. */
async function childWithDeadRows(t: ExecutionContext): Promise<{ dir: string; child: Child }> {
  const dir = tempDir();
  const child = new Child({ TESSERA_TEST_FAULTS: '1' });
  t.teardown(() => child.kill());
  await child.call('open', { options: { path: dir, dimension: DIM } });
  await child.call('upsertGen', { collection: 'c', tag: 'a', start: 0, count: 500, dim: DIM });
  await child.call('upsertGen', { collection: 'c', tag: 'a', start: 0, count: 100, dim: DIM });
  return { dir, child };
}

test('a compaction failing before its switch is abandoned: compact() fails, the store serves on and the next one succeeds', async (t) => {
  const { dir, child } = await childWithDeadRows(t);
  await child.call('inject', { fault: 'compaction-before-switch' });
  const failed = await child.send('compact');
  t.false(failed.ok);
  t.is(failed.status, 500, failed.message);
  t.regex(failed.message ?? '', /injected compaction fault/);
  t.is(await child.call('poisoned'), null);
  await child.call('upsertGen', { collection: 'c', tag: 'b', start: 0, count: 10, dim: DIM });
  t.deepEqual(await child.call('compact'), { ok: true });
  t.is((await child.call('stats')).footprint.dead_rows, 0);
  t.deepEqual(unnamedFiles(dir), []);
});

test('a compaction failing inside its switch poisons the store; a restart has every acknowledged write', async (t) => {
  const { dir, child } = await childWithDeadRows(t);
  await child.call('inject', { fault: 'compaction-at-switch' });
  const failed = await child.send('compact');
  t.is(failed.status, 503, failed.message);
  t.regex(await child.call('poisoned'), /compaction switch failed/);
  t.is((await child.send('upsertGen', { collection: 'c', tag: 'b', start: 0, count: 1, dim: DIM })).status, 503);
  t.is(JSON.parse(await child.call('records', { collection: 'c' })).length, 500, 'reads go on');
  await child.kill();
  const store = await Store.open({ path: dir });
  t.is(store.poisoned(), null);
  t.is((await store.records('c')).length, 500);
  await store.close();
});

/**
 * Four sealed segments of random 16-d rows of these sizes, each indexed before the next seals
 * (with `deadRow`, one row of each deleted before it seals), merged by the background.
 */
async function fourIndexedSegments(sizes: number[], deadRow = false) {
  const rand = prng(51);
  const vectors = Array.from({ length: sizes.reduce((a, b) => a + b) }, () => randomVector(rand, 16));
  const store = await Store.open({ path: tempDir(), dimension: 16, ann: 'hnsw', quantization: 'int8' });
  let next = 0;
  for (const size of sizes) {
    const records = vectors.slice(next, next + size).map((vector, k) => ({ id: `a-${next + k}`, vector }));
    await store.upsert('c', { records });
    if (deadRow) await store.delete('c', { ids: [records[1].id] });
    await store.flush();
    await store.waitForIndexes();
    next += size;
  }
  // Four level-0 segments, none over half the rows: the background merges them. (compact() would
  // first rewrite each segment with a dead row on its own.)
  await until(async () => (await store.stats()).footprint.segments === 1, 'the four segments merged');
  return { store, vectors };
}

test('a merge takes over the graph of its largest input that kept every row', async (t) => {
  const { store, vectors } = await fourIndexedSegments([1500, 1500, 2000, 1500]);
  t.teardown(() => store.close());
  t.is(store.footprintCached().graph_rows_reused, 2000);
  for (const i of [0, 2999, 3000, 4999, 5000, 6499]) {
    const { hits, plan } = await store.search({ query: vectors[i], top_k: 1, plan: true });
    t.is(plan.path, 'ann');
    t.is(hits[0].id, `a-${i}`, 'rows of the graph taken over and rows inserted around it are found');
  }
});

test('a merge whose inputs each lost a row builds its graph whole', async (t) => {
  const { store } = await fourIndexedSegments([1500, 1500, 2000, 1500], true);
  t.teardown(() => store.close());
  t.is(store.footprintCached().graph_rows_reused, 0);
});

/** Rows of each segment heldSegments writes: above the smallest segment that gets an index. */
const HELD_ROWS = 1100;

/**
 * A child process with fault injection on, whose store (opened with `options`) holds `segments`
 * sealed segments of HELD_ROWS rows, written while no background compaction could start: every
 * merge the policy wants is still due.
 */
async function heldSegments(t: ExecutionContext, options: Record<string, unknown>, segments: number) {
  const dir = tempDir();
  const child = new Child({ TESSERA_TEST_FAULTS: '1' });
  t.teardown(() => child.kill());
  await child.call('open', { options: { path: dir, dimension: DIM, ...options } });
  await child.call('inject', { fault: 'compactions-held' });
  for (let s = 0; s < segments; s++) {
    await child.call('upsertGen', { collection: 'c', tag: 'a', start: s * HELD_ROWS, count: HELD_ROWS, dim: DIM });
    await child.call('flush');
  }
  return { dir, child };
}

test('an index asked for after the data: the small segments merge first, and each row is inserted into a graph once', async (t) => {
  const segments = 64;
  const { dir, child } = await heldSegments(t, { ann: 'none', quantization: 'none' }, segments);
  await child.call('close');

  const store = await Store.open({ path: dir, ann: 'hnsw', quantization: 'int8' });
  t.teardown(() => store.close());
  t.is(store.footprintCached().index_builds_pending, 0, 'every segment is about to be merged: none is built on its own');
  await store.waitForIndexes();
  const { segments: left, graph_rows_inserted, compactions } = store.footprintCached();
  t.true(left < segments && compactions > 0, 'the small segments were merged');
  t.is(graph_rows_inserted, segments * HELD_ROWS, 'each row was inserted into a graph once');
  const { hits, plan } = await store.search({ query: genVector(7, DIM), top_k: 1, plan: true });
  t.is(plan.path, 'ann');
  t.true(hits[0].score > 0.99999, 'a stored vector finds itself (or its twin: these vectors repeat)');
});

test('when the merge they wait for fails, the waiting segments are indexed on their own', async (t) => {
  const segments = 8;
  const { child } = await heldSegments(t, { ann: 'hnsw', quantization: 'int8' }, segments);
  await child.call('inject', { fault: 'compaction-before-switch' });
  await child.call('flush'); // schedules the merge the segments wait for, which fails before its switch
  await child.call('waitForIndexes');
  const { segments: left, compactions, graph_rows_inserted } = await child.call('footprint');
  t.is(left, segments, 'nothing was merged');
  t.is(compactions, 0);
  t.is(graph_rows_inserted, segments * HELD_ROWS, 'every segment got its graph, once');
  const { plan } = JSON.parse(await child.call('searchJson', { body: JSON.stringify({ query: genVector(7, DIM), top_k: 1, plan: true }) }));
  t.is(plan.path, 'ann');
});
