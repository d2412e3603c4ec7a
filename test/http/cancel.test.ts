import test from 'ava';
import { call, prng, startServer, unitRecords } from './helpers';

const DIM = 128;
const ROWS = 100_000;
const TIMEOUT_MS = 500;

test('searches past --read-timeout answer 504 and their core work stops', async (t) => {
  t.timeout(120_000);
  // One core thread: work that is not cancelled would queue up in front of the next search.
  const server = await startServer(['--in-memory', '--dimension', String(DIM), '--query-threads', '1', '--read-timeout', `${TIMEOUT_MS}ms`, '--max-concurrent-requests', '1000']);
  t.teardown(() => server.stop());
  const rand = prng(7);
  for (let i = 0; i < ROWS; i += 10_000) {
    const r = await call(server, 'POST', '/collections/big/upsert', { records: unitRecords(10_000, DIM, rand, `b${i}-`) });
    t.is(r.status, 200);
  }
  // A deep ranking: most of each search's cost is core work, not HTTP.
  const query = JSON.stringify({ query: unitRecords(1, DIM, rand)[0].vector, top_k: 10_000 });
  const search = async () => {
    const started = performance.now();
    const r = await call(server, 'POST', '/search', query);
    return { ...r, ms: performance.now() - started };
  };

  const alone = await search();
  t.is(alone.status, 200);
  t.true(alone.ms < TIMEOUT_MS / 3, `a single search takes ${alone.ms.toFixed(0)}ms: too slow for this test's sizing`);

  // Many times more work than fits in the deadline.
  const burst = await Promise.all(Array.from({ length: Math.ceil((TIMEOUT_MS * 8) / Math.max(alone.ms, 1)) }, search));
  const timedOut = burst.filter((r) => r.status === 504);
  t.true(timedOut.length > burst.length / 2, `${timedOut.length} of ${burst.length} timed out`);
  t.deepEqual(burst.filter((r) => r.status !== 504 && r.status !== 200).map((r) => r.status), []);
  for (const r of timedOut) {
    t.is(r.json.retryable, false);
    t.is(typeof r.json.error, 'string');
  }

  // Had the abandoned searches kept running, this one would wait behind them and time out too.
  const after = await search();
  t.is(after.status, 200, `after the burst: ${after.status} in ${after.ms.toFixed(0)}ms`);
  t.true(after.ms < TIMEOUT_MS);
  t.is((await call(server, 'GET', '/health')).status, 200);
});
