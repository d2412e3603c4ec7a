// The approximate paths over HTTP, as a user starts them: --ann and --quantization flags, plans on
// /search, /stats echoing the configuration, and an index build cut short by SIGKILL: the store
// reopens, serves exactly meanwhile, and rebuilds what was not written.
import test from 'ava';
import { readdirSync } from 'node:fs';
import { type Server, call, sleep, startServer, tempDir } from '../http/helpers';
import { clustered, queriesNear } from './data';

const data = clustered(20000, 11);
const queries = queriesNear(data, 20, 13);

type Plan = { path: string; candidates?: Record<string, number> };
type Hit = { id: string };

async function load(server: Server, rows: number[][]) {
  for (let b = 0; b < rows.length; b += 2500) {
    const records = rows.slice(b, b + 2500).map((vector, j) => ({ id: `r${b + j}`, vector }));
    const r = await call(server, 'POST', '/collections/c/upsert', { records });
    if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  }
}

/** Waits until a planned search takes the ann path (the background build attached its index). */
async function untilIndexed(server: Server, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(server, 'POST', '/search', { query: queries[0], plan: true });
    if ((r.json as { plan: Plan }).plan.path === 'ann') return;
    if (Date.now() > deadline) throw new Error(`no index attached within ${timeoutMs}ms; stderr:\n${server.stderr()}`);
    await sleep(50);
  }
}

async function recall(server: Server): Promise<number> {
  let found = 0;
  for (const query of queries) {
    const exact = (await call(server, 'POST', '/search', { query, top_k: 10, exact: true })).json as Hit[];
    const approx = (await call(server, 'POST', '/search', { query, top_k: 10 })).json as Hit[];
    const ids = new Set(exact.map((h) => h.id));
    found += approx.filter((h) => ids.has(h.id)).length;
  }
  return found / (queries.length * 10);
}

test('--ann hnsw --quantization int8: /stats echoes both, /search walks the index after /flush', async (t) => {
  const server = await startServer(['--dimension', '32', '--distance', 'Euclidean', '--ann', 'hnsw', '--quantization', 'int8']);
  t.teardown(() => server.stop());
  const stats = (await call(server, 'GET', '/stats')).json as Record<string, unknown>;
  t.deepEqual(stats.ann, { kind: 'Hnsw', overscan: 4, seed: 0, m: 16, ef_construction: 200, ef_search: 64 });
  t.deepEqual(stats.quantization, { kind: 'Int8', rescore: 4 });
  await load(server, data);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  await untilIndexed(server);
  const r = (await call(server, 'POST', '/search', { query: queries[1], top_k: 5, plan: true })).json as { hits: Hit[]; plan: Plan };
  t.is(r.hits.length, 5);
  t.true(r.plan.candidates!.surfaced > 0);
  t.true((await recall(server)) >= 0.95);
  t.regex((await call(server, 'GET', '/metrics')).text, /^svc_index_builds_pending 0$/m);
});

test('a server with no index flags indexes by itself: hnsw + int8, and /search walks the index after the last upsert with no /flush', async (t) => {
  const server = await startServer(['--dimension', '32', '--distance', 'Euclidean']);
  t.teardown(() => server.stop());
  const stats = (await call(server, 'GET', '/stats')).json as Record<string, unknown>;
  t.deepEqual(stats.ann, { kind: 'Hnsw', overscan: 4, seed: 0, m: 16, ef_construction: 200, ef_search: 64 });
  t.deepEqual(stats.quantization, { kind: 'Int8', rescore: 4 });
  await load(server, data);
  // The memory segment sealed at its bound while rows arrived, and its last rows a quiet period
  // after the last upsert: every segment gets an index without a /flush.
  await untilIndexed(server);
  t.true((await recall(server)) >= 0.95);
  const footprint = (await call(server, 'GET', '/stats')).json.footprint as { segments: number };
  t.true(footprint.segments >= 1);
});

test('a memory segment seals at its bound of 4,096 rows while upserts keep coming', async (t) => {
  const server = await startServer(['--dimension', '32', '--distance', 'Euclidean']);
  t.teardown(() => server.stop());
  // Three batches of 2,500: the second takes the memory segment past the bound and seals it, the
  // third waits for the quiet period. Without the bound all 7,500 would seal as one segment.
  await load(server, data.slice(0, 7500));
  await untilIndexed(server);
  const footprint = (await call(server, 'GET', '/stats')).json.footprint as { segments: number };
  t.true(footprint.segments >= 2, JSON.stringify(footprint));
});

test('an index build cut short by SIGKILL: the store reopens, serves, and rebuilds only what was not written', async (t) => {
  const dir = tempDir();
  const first = await startServer(['--data', dir, '--dimension', '32', '--distance', 'Euclidean', '--ann', 'hnsw']);
  await load(first, data);
  t.is((await call(first, 'POST', '/flush')).status, 200);
  t.log((await call(first, 'GET', '/metrics')).text.match(/^svc_index_builds_pending .*$/m)?.[0]);
  // The build starts when /flush seals the segment; the kill lands while it runs on this machine
  // (a 20k-row graph takes about a second), or just after it on a faster one: both must recover.
  await first.stop('SIGKILL');
  const atKill = readdirSync(dir);
  const halfWritten = atKill.filter((f) => f.endsWith('.tmp'));
  t.log(`graphs written before the kill: ${atKill.filter((f) => f.endsWith('.hnsw')).length}; half-written files: ${halfWritten.length}`);

  // The recorded configuration (no --ann flag) brings the index back.
  const second = await startServer(['--data', dir, '--dimension', '32']);
  t.teardown(() => second.stop());
  const exact = (await call(second, 'POST', '/search', { query: queries[2], top_k: 10, exact: true })).json as Hit[];
  t.deepEqual(exact.map((h) => h.id).length, 10, 'the reopened store serves at once');
  await untilIndexed(second);
  t.true((await recall(second)) >= 0.95);
  const files = readdirSync(dir);
  t.true(files.some((f) => f.endsWith('.hnsw')));
  // A merge the reopened store runs meanwhile writes .tmp files of its own (a new segment's names).
  t.deepEqual(
    halfWritten.filter((f) => files.includes(f)),
    [],
    'no file the killed build was writing is left behind',
  );
});
