import test from 'ava';
import { type Server, call, prng, startServer, tempDir, unitRecords } from './helpers';

const DIM = 128;
const ROWS = 100_000;
/** Deadline in units of one search's duration, and burst size in units of the deadline. */
const DEADLINE_SEARCHES = 10;
const BURST_DEADLINES = 8;
/** Bounds the burst where a search is far quicker on the served store than it was on the loader. */
const MOST_IN_BURST = 400;

/** The deep ranking asked two ways: the typed route, and a SELECT compiled to it (docs/sql.md). */
interface Deep {
  path: string;
  body: string;
}

test('searches past --read-timeout answer 504 and their core work stops, on /search and on /query', async (t) => {
  t.timeout(180_000);
  const rand = prng(7);
  // A deep ranking: most of each search's cost is core work, not HTTP.
  const vector = unitRecords(1, DIM, rand)[0].vector;
  const deep: Deep[] = [
    { path: '/search', body: JSON.stringify({ query: vector, top_k: 10_000 }) },
    { path: '/query', body: JSON.stringify({ sql: `SELECT * FROM big ORDER BY NEAREST([${vector.join(', ')}]) LIMIT 10000` }) },
  ];
  const search = async (server: Server, { path, body }: Deep) => {
    const started = performance.now();
    const r = await call(server, 'POST', path, body);
    return { ...r, ms: performance.now() - started };
  };
  // One core thread: work that is not cancelled queues up in front of the next search. No index:
  // exact scans are the work to cancel, and no background build or merge of the loaded rows can
  // hold that one thread when the deadline is measured or a search is timed against it.
  const flags = ['--dimension', String(DIM), '--query-threads', '1', '--ann', 'none', '--quantization', 'none'];

  // Size the deadline from this machine's speed, so a loaded CI box does not decide the outcome.
  const data = tempDir();
  const loader = await startServer(['--data', data, ...flags]);
  for (let i = 0; i < ROWS; i += 10_000) {
    t.is((await call(loader, 'POST', '/collections/big/upsert', { records: unitRecords(10_000, DIM, rand, `b${i}-`) })).status, 200);
  }
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push((await search(loader, deep[0])).ms);
  const alone = times.sort((a, b) => a - b)[2];
  t.is(await loader.stop('SIGTERM'), 0);

  const timeoutMs = Math.max(300, Math.ceil(alone * DEADLINE_SEARCHES));
  const server = await startServer(['--data', data, ...flags, '--read-timeout', `${timeoutMs}ms`, '--max-concurrent-requests', '1000']);
  t.teardown(() => server.stop());
  for (const d of deep) {
    const first = await search(server, d);
    t.is(first.status, 200, d.path);
    t.is(first.json.length, 10_000, d.path);

    // The burst is sized from this server's quickest search on this route, so that a loader timed
    // while the machine was busy cannot leave a deadline most of the burst fits in. One core thread
    // and one JS thread can overlap, so at most about twice the deadline's worth completes.
    const quickest = Math.min(first.ms, (await search(server, d)).ms, (await search(server, d)).ms);
    const fitInDeadline = Math.ceil(timeoutMs / quickest);
    const size = Math.min(MOST_IN_BURST, Math.max(DEADLINE_SEARCHES, fitInDeadline) * BURST_DEADLINES);
    const burst = await Promise.all(Array.from({ length: size }, () => search(server, d)));
    const timedOut = burst.filter((r) => r.status === 504);
    t.true(
      timedOut.length > burst.length / 2,
      `${d.path}: ${timedOut.length} of ${burst.length} timed out (deadline ${timeoutMs}ms, quickest ${quickest.toFixed(0)}ms)`,
    );
    t.deepEqual(
      burst.filter((r) => r.status !== 504 && r.status !== 200).map((r) => r.status),
      [],
      d.path,
    );
    for (const r of timedOut) {
      t.is(r.json.retryable, false);
      t.is(typeof r.json.error, 'string');
    }

    // Had the abandoned searches kept running, this one would wait behind them and time out too.
    const after = await search(server, d);
    t.is(after.status, 200, `${d.path} after the burst: ${after.status} in ${after.ms.toFixed(0)}ms (deadline ${timeoutMs}ms)`);
  }
  t.is((await call(server, 'GET', '/health')).status, 200);
});
