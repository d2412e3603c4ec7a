import test from 'ava';
import { call, openRequest, sleep, startServer, tempDir, unitRecords, until } from './helpers';

test('a declared Content-Length above --max-body-bytes answers 413 before the body is read', async (t) => {
  const server = await startServer(['--max-body-bytes', '1024']);
  t.teardown(() => server.stop());
  const big = JSON.stringify({ records: unitRecords(40, 4) });
  t.true(big.length > 1024);
  const r = await call(server, 'POST', '/collections/c/upsert', big, { 'X-Request-Id': 'too-big' });
  t.is(r.status, 413);
  t.is(typeof r.json.error, 'string');
  t.is(r.headers.get('x-request-id'), 'too-big');
  // Refused before reading: a body that never arrives still gets its 413.
  const { req, response } = openRequest(server, 'POST', '/collections/c/upsert', 10_000_000);
  t.is((await response).status, 413);
  req.destroy();
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(2, 4) })).status, 200);
});

test('a chunked body is counted while it streams and refused with 413 once past the limit', async (t) => {
  const server = await startServer(['--max-body-bytes', '1024']);
  t.teardown(() => server.stop());
  const { req, response } = openRequest(server, 'POST', '/collections/c/upsert');
  req.write(`{"records":[${' '.repeat(600)}`);
  await sleep(50);
  req.write(' '.repeat(600));
  const r = await response;
  t.is(r.status, 413);
  t.is(typeof JSON.parse(r.text).error, 'string');
  req.destroy();

  const small = openRequest(server, 'POST', '/collections/c/upsert');
  const body = JSON.stringify({ records: unitRecords(2, 4) });
  small.req.write(body.slice(0, 20));
  await sleep(20);
  small.req.end(body.slice(20));
  t.is((await small.response).status, 200);
  t.is((await call(server, 'GET', '/health')).status, 200);
});

test('beyond --max-concurrent-requests requests are shed with 503, Retry-After and retryable; probes never are', async (t) => {
  const server = await startServer(['--max-concurrent-requests', '4']);
  t.teardown(() => server.stop());
  // Four uploads that stay open hold every slot: real concurrency, not a race.
  const body = JSON.stringify({ records: unitRecords(4, 4) });
  const held = Array.from({ length: 4 }, (_, i) => {
    const h = openRequest(server, 'POST', `/collections/held${i}/upsert`);
    h.req.write(body.slice(0, 10));
    return h;
  });
  // Every slot is held once a request beyond them is shed.
  await until(async () => (await call(server, 'GET', '/collections')).status === 503, 'four uploads hold every slot');
  const burst = await Promise.all(Array.from({ length: 20 }, () => call(server, 'POST', '/search', { query: [1, 0, 0, 0] })));
  for (const r of burst) {
    t.is(r.status, 503);
    t.is(r.headers.get('retry-after'), '1');
    t.is(r.json.retryable, true);
    t.is(typeof r.json.error, 'string');
  }
  for (const path of ['/health', '/ready', '/metrics']) t.is((await call(server, 'GET', path)).status, 200, path);

  for (const h of held) h.req.end(body.slice(10));
  for (const h of held) t.is((await h.response).status, 200);
  t.is((await call(server, 'POST', '/search', { query: [1, 0, 0, 0] })).status, 200, 'slots are released');
});

test('a request past --read-timeout answers 504 with retryable false', async (t) => {
  const server = await startServer(['--read-timeout', '200ms', '--write-timeout', '300ms']);
  t.teardown(() => server.stop());
  const cases = [
    ['/search', 200, /request exceeded --read-timeout \(200ms\); the work was cancelled$/],
    // A write may be past its commit when the deadline passes: the message says to look first.
    [
      '/collections/slow/upsert',
      300,
      /request exceeded --write-timeout \(300ms\); the write was cancelled unless it had already committed: read before retrying$/,
    ],
  ] as const;
  for (const [path, limit, message] of cases) {
    const started = Date.now();
    const { req, response } = openRequest(server, 'POST', path);
    req.write('{"');
    const r = await response;
    const elapsed = Date.now() - started;
    req.destroy();
    t.is(r.status, 504, path);
    t.is(JSON.parse(r.text).retryable, false);
    t.regex(JSON.parse(r.text).error, message);
    t.truthy(r.headers['x-request-id']);
    // Not before the deadline; the upper bound only tells the flag from the 30s default, since a
    // loaded CI machine can delay the answer by seconds.
    t.true(elapsed >= limit - 20 && elapsed < 10_000, `${path} answered after ${elapsed}ms`);
  }
  t.is((await call(server, 'GET', '/health')).status, 200);
});

test("--mapped-vector-bytes 0: a sealed segment's rows are rescored from its files, and /stats says so", async (t) => {
  const server = await startServer(['--data', tempDir(), '--quantization', 'int8', '--mapped-vector-bytes', '0']);
  t.teardown(() => server.stop());
  const records = unitRecords(2000, 4);
  t.is((await call(server, 'POST', '/collections/c/upsert', { records })).status, 200);
  t.is((await call(server, 'POST', '/flush')).status, 200);
  t.like((await call(server, 'GET', '/stats')).json.footprint, { vector_bytes: 2000 * 16, vector_bytes_read_from_files: 2000 * 16 });
  const search = () => call(server, 'POST', '/search', { query: records[7].vector, top_k: 1, plan: true });
  await until(async () => (await search()).json.plan.path === 'ann', 'the sealed segment is indexed');
  const found = await search();
  t.is(found.json.hits[0].id, records[7].id);
  t.true(found.json.plan.rows_rescored > 0);
});

test('--max-vector-bytes: an upsert that would pass it answers 507 naming the limit and the flag, and writes nothing', async (t) => {
  // 1KiB at dimension 4 is 64 rows of 16 bytes.
  const server = await startServer(['--max-vector-bytes', '1KiB']);
  t.teardown(() => server.stop());
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(60, 4) })).status, 200);
  const before = (await call(server, 'GET', '/stats')).json.footprint;
  const refused = await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(5, 4, undefined, 'more') });
  t.is(refused.status, 507);
  t.regex(refused.json.error, /max_vector_bytes 1024 \(--max-vector-bytes/);
  t.deepEqual((await call(server, 'GET', '/stats')).json.footprint, before);
  t.is((await call(server, 'GET', '/health')).status, 200, 'a refused batch is not a fault');
  t.is((await call(server, 'POST', '/collections/c/upsert', { records: unitRecords(4, 4, undefined, 'more') })).status, 200, 'what fits still goes in');
});
