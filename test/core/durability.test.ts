// Durability: nothing is acknowledged before it is in the log, so a process SIGKILLed right after an
// acknowledgement loses nothing; a torn log tail is truncated to the last intact record, not fatal;
// recovery after an automatic checkpoint combines sealed segments with the log written after it.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Stats, type StoredRecord, Store, parseExact } from '../../lib/index';
import { Child, type Reply, genBatchBody, genVector, prng, statsOfWrites, tempDir } from './helpers';

const DIM = 8;

/** Every record of `collection`, grouped by its tag attr. */
function byTag(records: StoredRecord[]): Map<string, StoredRecord[]> {
  const out = new Map<string, StoredRecord[]>();
  for (const r of records) {
    const tag = (r.attrs.tag as { Str: string }).Str;
    if (!out.has(tag)) out.set(tag, []);
    out.get(tag)!.push(r);
  }
  return out;
}

/** Checks that batch `tag` (records [0, count)) is present exactly as genBatchBody wrote it. */
function batchIsIntact(records: StoredRecord[] | undefined, tag: string, count: number, dim: number): string | null {
  if (!records) return `batch ${tag} is missing`;
  if (records.length !== count) return `batch ${tag} has ${records.length} of ${count} records`;
  const sorted = [...records].sort((a, b) => Number((a.attrs.i as { Int: bigint }).Int - (b.attrs.i as { Int: bigint }).Int));
  for (let i = 0; i < count; i++) {
    const r = sorted[i];
    if (r.id !== `${tag}-${i}` || (r.attrs.i as { Int: bigint }).Int !== BigInt(i)) return `batch ${tag}: record ${i} is ${r.id}`;
    const want = genVector(i, dim);
    if (!r.vector || r.vector.some((x, k) => Math.fround(x) !== want[k])) return `batch ${tag}: record ${i} has vector ${r.vector}`;
  }
  return null;
}

test('an upsert acknowledged just before SIGKILL is there on reopen', async (t) => {
  const dir = tempDir();
  const child = new Child();
  await child.call('open', { options: { path: dir, dimension: DIM, distance: 'Euclidean' } });
  child.onReply = (r) => {
    if (r.ok && r.result?.upserted) child.killNow();
  };
  const ack = await child.send('upsertGen', { collection: 'd', tag: 'only', start: 0, count: 200, dim: DIM });
  t.true(ack.ok);
  t.is((await child.exited).signal, 'SIGKILL');
  t.true(fs.statSync(path.join(dir, 'wal.log')).size > 0, 'the batch is in the log, not in a checkpoint');
  const store = await Store.open({ path: dir });
  t.is(batchIsIntact(byTag(await store.records('d')).get('only'), 'only', 200, DIM), null);
  await store.close();
});

test('SIGKILL after a random acknowledgement, round after round on one store: every acknowledged batch survives whole', async (t) => {
  const dir = tempDir();
  const rand = prng(2024);
  const acked = new Set<string>();
  const sizeOf = new Map<string, number>(); // every batch ever sent -> its record count
  for (let round = 0; round < 6; round++) {
    const child = new Child();
    await child.call('open', { options: { path: dir, dimension: DIM, distance: 'Euclidean' } });
    const killAfter = 1 + Math.floor(rand() * 20);
    const tagOf = new Map<number, string>();
    let acks = 0;
    child.onReply = (r: Reply) => {
      if (!r.ok || r.result?.upserted === undefined) return;
      acked.add(tagOf.get(r.id)!);
      if (++acks === killAfter) child.killNow();
    };
    const batchSize = 20 + Math.floor(rand() * 200);
    const concurrent = round % 2 === 0;
    const sends: Promise<Reply>[] = [];
    // Request ids in the child protocol are 2, 3, ... after the open (id 1).
    for (let b = 0; b < 20; b++) {
      const tag = `r${round}b${b}`;
      sizeOf.set(tag, batchSize);
      tagOf.set(b + 2, tag);
      const p = child.send('upsertGen', { collection: 'd', tag, start: 0, count: batchSize, dim: DIM });
      sends.push(p);
      if (!concurrent) await p; // one batch at a time, each waiting for its barrier
    }
    await Promise.all(sends);
    await child.exited;
    t.true(acks >= killAfter, `round ${round}: the child was killed after ${acks} acknowledgements`);
    // Verify with a read-only open (no checkpoint, the log stays as the crash left it) on even
    // rounds, and with a writer open + close (recovery, then a checkpoint) on odd rounds.
    const store = await Store.open({ path: dir, readOnly: round % 2 === 0 });
    const groups = byTag(await store.records('d'));
    for (const tag of acked) t.is(batchIsIntact(groups.get(tag), tag, sizeOf.get(tag)!, DIM), null, `round ${round}: acknowledged batch ${tag}`);
    for (const [tag, recs] of groups) {
      t.true(sizeOf.has(tag), `unexpected batch ${tag}`);
      t.is(batchIsIntact(recs, tag, sizeOf.get(tag)!, DIM), null, `round ${round}: an unacknowledged batch is all or nothing`);
    }
    await store.close();
  }
  t.true(acked.size >= 6);
});

test('flush(), then more writes, deletes and metadata, then SIGKILL: the reopen has everything', async (t) => {
  const dir = tempDir();
  const child = new Child();
  await child.call('open', { options: { path: dir, dimension: DIM, distance: 'Euclidean' } });
  for (let b = 0; b < 4; b++) await child.call('upsertGen', { collection: 'd', tag: `pre${b}`, start: 0, count: 300, dim: DIM });
  await child.call('setVectorNames', { collection: 'd', names: ['title'] });
  await child.call('flush');
  t.true(fs.existsSync(path.join(dir, 'MANIFEST')));
  t.is(fs.statSync(path.join(dir, 'wal.log')).size, 0, 'flush empties the log');
  for (let b = 0; b < 3; b++) await child.call('upsertGen', { collection: 'd', tag: `post${b}`, start: 0, count: 300, dim: DIM });
  await child.call('upsertGen', { collection: 'e', tag: 'other', start: 0, count: 10, dim: DIM });
  await child.call('delete', { collection: 'd', ids: ['pre0-0', 'pre0-1', 'post0-0', 'nope'] });
  await child.call('upsert', {
    collection: 'd',
    body: '{"records":[{"id":"pre1-5","vector":[1,1,1,1,1,1,1,1],"vectors":{"title":[2,2,2,2,2,2,2,2]},"attrs":{"tag":{"Str":"moved"},"max":{"Int":9223372036854775807},"z":{"Float":-0.0}}}]}',
  });
  await child.call('putMeta', { collection: 'd', meta: { after: 'flush' } });
  await child.call('putAlias', { name: 'al', target: 'e' });
  const statsBefore = await child.call('stats');
  const hitsBefore = await child.call('searchJson', { body: JSON.stringify({ query: genVector(7, DIM), top_k: 50 }) });
  await child.kill();

  const store = await Store.open({ path: dir });
  const groups = byTag(await store.records('d'));
  t.is(groups.get('pre0')!.length, 298);
  t.is(groups.get('pre1')!.length, 299);
  t.is(batchIsIntact(groups.get('pre2'), 'pre2', 300, DIM), null);
  t.is(batchIsIntact(groups.get('post1'), 'post1', 300, DIM), null);
  t.is(groups.get('post0')!.length, 299);
  const moved = groups.get('moved')!;
  t.is(moved.length, 1);
  t.deepEqual(moved[0].vectors, { title: [2, 2, 2, 2, 2, 2, 2, 2] });
  t.is((moved[0].attrs.max as { Int: bigint }).Int, 2n ** 63n - 1n);
  t.true(Object.is((moved[0].attrs.z as { Float: number }).Float, -0));
  t.deepEqual(await store.getMeta('d'), { after: 'flush' });
  t.deepEqual(await store.aliases(), { al: 'e' });
  t.is((await store.records('al')).length, 10);
  t.deepEqual(statsOfWrites(await store.stats()), statsOfWrites(statsBefore as Stats), 'footprint and catalog are as they were before the kill');
  t.is((await store.searchJson(Buffer.from(JSON.stringify({ query: genVector(7, DIM), top_k: 50 })))).toString(), hitsBefore);
  await store.close();
});

// ---- torn log tails ----

/** Six acknowledged batches in the log of a killed child; returns the log size after each. */
async function crashedStore(dir: string): Promise<number[]> {
  const child = new Child();
  await child.call('open', { options: { path: dir, dimension: 4, distance: 'DotProduct' } });
  const boundaries: number[] = [];
  for (let b = 0; b < 6; b++) {
    await child.call('upsertGen', { collection: 'd', tag: `b${b}`, start: 0, count: 40 + b, dim: 4 });
    boundaries.push(await child.call('fileSize', { dir, file: 'wal.log' }));
  }
  await child.kill();
  return boundaries;
}

const TAILS: [string, (wal: string, boundaries: number[]) => void, number][] = [
  ['garbage bytes appended', (wal) => fs.appendFileSync(wal, Buffer.from('this is not a log record, just noise \u0001\u0002\u00ff')), 6],
  ['a frame header promising more bytes than exist', (wal) => fs.appendFileSync(wal, Buffer.from([0x00, 0x10, 0x00, 0x00, 1, 2, 3, 4, 9, 9, 9])), 6],
  ['a zero-filled tail (a crash after the file grew but before its data landed)', (wal) => fs.appendFileSync(wal, Buffer.alloc(4096)), 6],
  ['half a frame header', (wal) => fs.appendFileSync(wal, Buffer.from([7, 0, 0])), 6],
  ['the last 3 bytes cut off', (wal) => fs.truncateSync(wal, fs.statSync(wal).size - 3), 5],
  ['the last record cut to its header', (wal, b) => fs.truncateSync(wal, b[4] + 8), 5],
  [
    'a flipped byte inside the last record',
    (wal, b) => {
      const fd = fs.openSync(wal, 'r+');
      const pos = b[4] + 8 + Math.floor((b[5] - b[4] - 8) / 2);
      const byte = Buffer.alloc(1);
      fs.readSync(fd, byte, 0, 1, pos);
      byte[0] ^= 0x40;
      fs.writeSync(fd, byte, 0, 1, pos);
      fs.closeSync(fd);
    },
    5,
  ],
];

for (const [what, damage, intact] of TAILS) {
  test(`a torn log tail (${what}) is truncated to the last intact record on reopen, not fatal`, async (t) => {
    const dir = tempDir();
    const boundaries = await crashedStore(dir);
    const wal = path.join(dir, 'wal.log');
    t.is(fs.statSync(wal).size, boundaries[5]);
    damage(wal, boundaries);
    const damagedSize = fs.statSync(wal).size;

    // A read-only open replays the intact records and leaves the file alone.
    const ro = await Store.open({ path: dir, readOnly: true });
    t.deepEqual(
      [...byTag(await ro.records('d')).keys()].sort(),
      Array.from({ length: intact }, (_, b) => `b${b}`),
    );
    await ro.close();
    t.is(fs.statSync(wal).size, damagedSize, 'a reader does not truncate');

    // The first writer recovers every complete record and cuts the log back to a record boundary.
    const child = new Child();
    await child.call('open', { options: { path: dir } });
    const recovered = byTag(parseExact<StoredRecord[]>(await child.call('records', { collection: 'd' })));
    t.is(await child.call('fileSize', { dir, file: 'wal.log' }), boundaries[intact - 1], 'the log ends at the last intact record');
    // A write after recovery appends cleanly behind that boundary.
    await child.call('upsertGen', { collection: 'd', tag: 'after', start: 0, count: 5, dim: 4 });
    await child.kill();
    for (let b = 0; b < intact; b++) t.is(batchIsIntact(recovered.get(`b${b}`), `b${b}`, 40 + b, 4), null);
    t.is(recovered.size, intact);

    // A second reopen is fine and sees the write made after the first recovery.
    const store = await Store.open({ path: dir });
    const groups = byTag(await store.records('d'));
    t.deepEqual([...groups.keys()].sort(), [...Array.from({ length: intact }, (_, b) => `b${b}`), 'after'].sort());
    t.is(batchIsIntact(groups.get('after'), 'after', 5, 4), null);
    await store.close();
  });
}

// ---- recovery after an automatic checkpoint ----

test('recovery after an automatic checkpoint: sealed segments plus the log written after them', async (t) => {
  const dir = tempDir();
  const child = new Child();
  // No index: the checkpoint thresholds this test is about are those of a store without one (with
  // one a memory segment seals at 4,096 rows).
  await child.call('open', { options: { path: dir, dimension: 2, distance: 'Euclidean', ann: 'none', quantization: 'none' } });
  const BATCH = 10_000;
  const BATCHES = 31; // 310k rows: past the checkpoint threshold (a memory segment 7/8 full: 229,376 rows)
  let checkpointedAfter = -1;
  for (let b = 0; b < BATCHES; b++) {
    await child.call('upsert', { collection: 'big', body: genBatchBody('big', b * BATCH, BATCH, 2) });
    if (checkpointedAfter < 0 && fs.existsSync(path.join(dir, 'MANIFEST'))) checkpointedAfter = b;
  }
  t.true(checkpointedAfter >= 22 && checkpointedAfter < BATCHES - 1, `the checkpoint came after batch ${checkpointedAfter}`);
  // Changes to rows that now live in sealed segments, made only in the log.
  await child.call('delete', { collection: 'big', ids: ['big-0', 'big-1', 'big-150000'] });
  await child.call('upsert', { collection: 'big', body: '{"records":[{"id":"big-2","vector":[0.5,0.5],"attrs":{"tag":{"Str":"big"},"i":{"Int":-2}}}]}' });
  await child.call('upsertGen', { collection: 'small', tag: 'small', start: 0, count: 100, dim: 2 });
  const statsBefore = await child.call('stats');
  await child.kill();

  const files = fs.readdirSync(dir);
  t.true(files.includes('MANIFEST'));
  t.true(
    files.some((f) => /^seg-\d+\.vec$/.test(f)),
    files.join(' '),
  );
  t.true(fs.statSync(path.join(dir, 'wal.log')).size > 0, 'writes after the checkpoint are in the log');

  const store = await Store.open({ path: dir });
  t.deepEqual(statsOfWrites(await store.stats()), statsOfWrites(statsBefore as Stats));
  const records = await store.records('big');
  t.is(records.length, BATCH * BATCHES - 3);
  const seen = new Set<string>();
  for (const r of records) {
    t.false(seen.has(r.id), `${r.id} appears once`);
    seen.add(r.id);
  }
  for (const gone of ['big-0', 'big-1', 'big-150000']) t.false(seen.has(gone), `${gone} stays deleted`);
  const rand = prng(31);
  const byId = new Map(records.map((r) => [r.id, r]));
  for (let k = 0; k < 200; k++) {
    const i = 3 + Math.floor(rand() * (BATCH * BATCHES - 3));
    if (i === 150000) continue;
    const r = byId.get(`big-${i}`);
    t.truthy(r, `big-${i}`);
    t.deepEqual(r!.vector!.map(Math.fround), genVector(i, 2), `big-${i}`);
    t.is((r!.attrs.i as { Int: bigint }).Int, BigInt(i));
  }
  t.deepEqual(byId.get('big-2')!.vector, [0.5, 0.5]);
  const hits = await store.search({ query: genVector(299_999, 2), top_k: 1, scope: ['big'] });
  t.true(hits[0].score === 0, `score ${hits[0].score}`);
  t.is((await store.records('small')).length, 100);
  await store.close();
});

// ---- the quiet-period seal ----

test('SIGKILL right after a quiet-period seal: every row it sealed is there on reopen, and gets its index', async (t) => {
  const dir = tempDir();
  const child = new Child({ TESSERA_CRASH_AT: 'quiet-seal-sealed' });
  // A new store on disk indexes by default; 1,500 rows (past the 1,024 an index needs, short of the
  // 4,096 bound) seal only when the quiet period ends, and the process dies the moment they have.
  await child.call('open', { options: { path: dir, dimension: DIM, distance: 'Euclidean' } });
  await child.call('upsertGen', { collection: 'c', tag: 'a', start: 0, count: 1000, dim: DIM });
  await child.call('upsertGen', { collection: 'c', tag: 'a', start: 1000, count: 500, dim: DIM });
  const { signal } = await child.exited;
  t.is(signal, 'SIGKILL');
  t.regex(child.stderr, /crash point quiet-seal-sealed/);
  t.true(
    fs.readdirSync(dir).some((f) => /^seg-\d+\.vec$/.test(f)),
    'the rows were sealed into a segment file before the kill',
  );
  const store = await Store.open({ path: dir });
  t.is(batchIsIntact(byTag(await store.records('c')).get('a'), 'a', 1500, DIM), null);
  await store.waitForIndexes();
  const { plan } = await store.search({ query: genVector(7, DIM), top_k: 5, plan: true });
  t.is(plan.path, 'ann', 'the reopened writer builds the sealed segment its index');
  await store.close();
});
