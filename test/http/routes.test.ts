import * as http from 'node:http';
import test from 'ava';
import { type Server, call, sleep, startServer, unitRecords } from './helpers';

let server: Server;
test.before(async () => {
  server = await startServer();
});
test.after.always(() => server?.stop());

test('X-Request-Id is echoed when sent and generated otherwise, on every kind of answer', async (t) => {
  for (const path of ['/health', '/collections', '/no/such/route']) {
    const echoed = await call(server, 'GET', path, undefined, { 'X-Request-Id': 'req-42' });
    t.is(echoed.headers.get('x-request-id'), 'req-42', path);
    const a = await call(server, 'GET', path);
    const b = await call(server, 'GET', path);
    t.truthy(a.headers.get('x-request-id'), path);
    t.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'), path);
  }
});

test('unknown routes and /namespaces answer 404 with an error body', async (t) => {
  for (const [method, path] of [
    ['GET', '/nope'],
    ['PATCH', '/nope'],
    ['GET', '/namespaces'],
    ['POST', '/namespaces'],
    ['GET', '/collections/a/b/c'],
  ]) {
    const r = await call(server, method, path);
    t.is(r.status, 404, `${method} ${path}`);
    t.is(typeof r.json?.error, 'string', `${method} ${path}`);
    t.is(r.headers.get('allow'), null, `${method} ${path}`);
  }
});

test('a method a known path does not answer is 405, with the methods it answers in Allow and the error', async (t) => {
  for (const [method, path, allow] of [
    ['PATCH', '/collections', 'GET'],
    ['POST', '/health', 'GET'],
    ['DELETE', '/search', 'POST'],
    ['PUT', '/collections/docs', 'DELETE, POST'],
    ['GET', '/collections/docs/upsert', 'POST'],
    ['HEAD', '/stats', 'GET'],
  ]) {
    const r = await call(server, method, path);
    t.is(r.status, 405, `${method} ${path}`);
    t.is(r.headers.get('allow'), allow, `${method} ${path}`);
    if (method !== 'HEAD') t.is(r.json.error, `${method} is not allowed on ${path}; it answers ${allow}`, `${method} ${path}`);
  }
});

test('/health and /ready answer 200 ok as plain text', async (t) => {
  for (const path of ['/health', '/ready']) {
    const r = await call(server, 'GET', path);
    t.is(r.status, 200);
    t.is(r.text, 'ok');
    t.regex(r.headers.get('content-type') ?? '', /^text\/plain/);
  }
});

test('/cluster has the single-process shape', async (t) => {
  const r = await call(server, 'GET', '/cluster');
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json).sort(), [
    'cluster',
    'commit_version',
    'fenced',
    'holds_writer_handle',
    'lease_owner',
    'max_staleness_secs',
    'role',
    'staleness_secs',
  ]);
  t.like(r.json, { role: 'Writer', cluster: false, holds_writer_handle: true, fenced: false, lease_owner: null, staleness_secs: 0, max_staleness_secs: null });
  t.true(Number.isInteger(r.json.commit_version));
});

test('/versions reports no history', async (t) => {
  const r = await call(server, 'GET', '/versions');
  t.is(r.status, 200);
  t.true(Number.isInteger(r.json.commit_version));
  t.like(r.json, { oldest_readable: null, pinned: null, readable: [] });
});

test('/stats has every field of the spec table', async (t) => {
  const r = await call(server, 'GET', '/stats');
  t.is(r.status, 200);
  t.like(r.json, { dimension: 4, distance: 'Cosine', ann: { kind: 'Hnsw' }, quantization: { kind: 'Int8', rescore: 4 } });
  t.true(Number.isInteger(r.json.query_threads));
  t.is(typeof r.json.mmap, 'boolean');
  t.true(Array.isArray(r.json.collections));
  for (const k of ['rows', 'dead_rows', 'dimension', 'vector_bytes', 'doc_count', 'segments', 'code_bytes', 'ann_index_bytes', 'id_index_bytes'])
    t.true(Number.isInteger(r.json.footprint[k]), k);
});

test('collections: create, list, meta, vector names, drop', async (t) => {
  t.deepEqual((await call(server, 'POST', '/collections/lifecycle')).json, { created: 'lifecycle' });
  t.true((await call(server, 'GET', '/collections')).json.includes('lifecycle'));
  t.deepEqual((await call(server, 'GET', '/collections/lifecycle/meta')).json, {});
  t.deepEqual((await call(server, 'PUT', '/collections/lifecycle/meta', { owner: 'ops', tier: '1' })).json, { ok: true });
  t.deepEqual((await call(server, 'GET', '/collections/lifecycle/meta')).json, { owner: 'ops', tier: '1' });
  t.deepEqual((await call(server, 'POST', '/collections/lifecycle/vector-names', { names: ['title', 'body'] })).json, { ok: true });
  const reserved = await call(server, 'POST', '/collections/lifecycle/vector-names', { names: ['default'] });
  t.is(reserved.status, 400);
  t.deepEqual((await call(server, 'DELETE', '/collections/lifecycle')).json, { dropped: 'lifecycle' });
  t.false((await call(server, 'GET', '/collections')).json.includes('lifecycle'));
});

test('small JSON bodies are validated with a message naming the field', async (t) => {
  await call(server, 'POST', '/collections/validated');
  const cases: [string, string, unknown, RegExp][] = [
    ['PUT', '/collections/validated/meta', { k: 1 }, /\bk must be a string, got 1/],
    ['PUT', '/collections/validated/meta', ['a'], /object/],
    ['PUT', '/collections/validated/meta', '{"k": "v"', /malformed JSON/],
    ['PUT', '/collections/validated/meta', '', /empty/],
    ['POST', '/collections/validated/vector-names', { names: 'title' }, /\bnames must be an array/],
    ['POST', '/collections/validated/vector-names', { names: ['a', 2] }, /\bnames\[1\] must be a string/],
    ['POST', '/collections/validated/vector-names', {}, /\bnames is required/],
    ['PUT', '/aliases/v', { target: 'validated', extra: true }, /unknown field 'extra'/],
    ['PUT', '/aliases/v', { target: 7 }, /\btarget must be a string/],
  ];
  for (const [method, path, body, message] of cases) {
    const r = await call(server, method, path, body);
    t.is(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    t.regex(r.json.error, message);
  }
  t.deepEqual((await call(server, 'GET', '/collections/validated/meta')).json, {});
});

test('aliases: put, list, resolve on data routes, drop', async (t) => {
  await call(server, 'POST', '/collections/aliased');
  t.deepEqual((await call(server, 'PUT', '/aliases/current', { target: 'aliased' })).json, { alias: 'current', target: 'aliased' });
  t.is((await call(server, 'GET', '/aliases')).json.current, 'aliased');
  t.is((await call(server, 'POST', '/collections/current/upsert', { records: unitRecords(3, 4) })).status, 200);
  t.is((await call(server, 'GET', '/collections/aliased/records')).json.length, 3);
  t.deepEqual((await call(server, 'DELETE', '/aliases/current')).json, { dropped: 'current' });
  t.is((await call(server, 'GET', '/aliases')).json.current, undefined);
});

test('upsert, search, records and delete round-trip with exact 64-bit integers', async (t) => {
  const big = '9007199254740993'; // 2^53 + 1: a JS number would turn it into ...992
  const body = `{"records":[{"id":"a","vector":[1,0,0,0],"attrs":{"n":{"Int":${big}}}},{"id":"b","vector":[0,1,0,0]}]}`;
  t.deepEqual((await call(server, 'POST', '/collections/exact/upsert', body)).json, { upserted: 2 });
  const hits = await call(server, 'POST', '/search', { query: [1, 0, 0, 0], scope: ['exact'], top_k: 1 });
  t.is(hits.status, 200);
  t.is(hits.json[0].id, 'a');
  t.true(hits.text.includes(big));
  const records = await call(server, 'GET', '/collections/exact/records');
  t.true(records.text.includes(big));
  t.deepEqual(records.json.map((r: { id: string }) => r.id).sort(), ['a', 'b']);
  t.deepEqual((await call(server, 'POST', '/collections/exact/delete', { ids: ['a', 'zzz'] })).json, { deleted: 1 });
  t.deepEqual(
    (await call(server, 'GET', '/collections/exact/records')).json.map((r: { id: string }) => r.id),
    ['b'],
  );
});

test('records of a large collection, sent in batches read in parts, stream as one valid JSON array of them as sent', async (t) => {
  const records = unitRecords(20_000, 4);
  for (let i = 0; i < records.length; i += 10_000) {
    const batch = { records: records.slice(i, i + 10_000) };
    t.true(JSON.stringify(batch).length > 512 * 1024, 'a batch large enough to be read in parts');
    t.is((await call(server, 'POST', '/collections/large/upsert', batch)).status, 200);
  }
  const res = await fetch(`${server.url}/collections/large/records`);
  t.is(res.status, 200);
  t.is(res.headers.get('transfer-encoding'), 'chunked');
  const all = (await res.json()) as { id: string; vector: number[] }[];
  t.is(all.length, records.length);
  const sent = new Map(records.map((r) => [r.id, r.vector]));
  t.deepEqual(
    all.filter((r) => !sent.get(r.id)?.every((x, k) => Math.abs(x - r.vector[k]) < 1e-5)).map((r) => r.id),
    [],
    'every record holds the vector sent',
  );
});

test('data routes on a missing collection answer 404 with an error body', async (t) => {
  for (const [method, path, body] of [
    ['GET', '/collections/missing/meta'],
    ['GET', '/collections/missing/records'],
    ['POST', '/collections/missing/delete', { ids: ['x'] }],
  ] as const) {
    const r = await call(server, method, path, body);
    t.is(r.status, 404, `${method} ${path}`);
    t.is(typeof r.json.error, 'string');
  }
});

test('/flush answers ok', async (t) => {
  t.deepEqual((await call(server, 'POST', '/flush')).json, { ok: true });
});

test('/compact reclaims dead rows and answers ok; a bad body is 400 naming the field', async (t) => {
  // A server of its own: the shared one's other writes can seal these rows, and a background
  // compaction then reclaims them before the test looks.
  const server = await startServer();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/collections/compacted/upsert', { records: unitRecords(50, 4) });
  await call(server, 'POST', '/collections/compacted/upsert', { records: unitRecords(20, 4) });
  t.true((await call(server, 'GET', '/stats')).json.footprint.dead_rows > 0);
  t.deepEqual((await call(server, 'POST', '/compact')).json, { ok: true });
  const { footprint } = (await call(server, 'GET', '/stats')).json;
  t.is(footprint.dead_rows, 0);
  t.is(footprint.rows, footprint.doc_count);
  t.deepEqual((await call(server, 'POST', '/compact', { expired: true })).json, { ok: true });
  const bad = await call(server, 'POST', '/compact', { expired: 'yes' });
  t.is(bad.status, 400);
  t.regex(bad.json.error, /expired/);
  const metrics = (await call(server, 'GET', '/metrics')).text;
  t.regex(metrics, /^svc_compactions_total [1-9]/m);
  t.regex(metrics, /^svc_compaction_bytes_total [1-9]/m);
  t.regex(metrics, /^svc_store_segments \d+/m);
  t.regex(metrics, /^svc_compactions_running 0$/m, 'none runs once /compact answered');
});

test('/metrics exposes the spec metrics with route templates as labels', async (t) => {
  await call(server, 'POST', '/collections/metered-xyz/upsert', { records: unitRecords(2, 4) });
  await call(server, 'POST', '/search', { query: [1, 0, 0, 0] });
  await call(server, 'GET', '/no-such-route-abc');
  const r = await call(server, 'GET', '/metrics');
  t.is(r.status, 200);
  t.is(r.headers.get('content-type'), 'text/plain; version=0.0.4');
  t.regex(r.text, /svc_http_requests_total\{route="\/collections\/\{name\}\/upsert",status="2xx"\} \d+/);
  t.regex(r.text, /svc_http_request_duration_seconds_bucket\{le="[^"]+",route="\/search"\} \d+/);
  t.regex(r.text, /svc_search_queries_total [1-9]/);
  for (const gauge of ['svc_store_rows', 'svc_store_dead_rows', 'svc_store_collections']) t.regex(r.text, new RegExp(`^${gauge} \\d+`, 'm'));
  t.false(r.text.includes('metered-xyz'));
  t.false(r.text.includes('no-such-route-abc'));
});

test('a records stream follows a slow reader and survives one that leaves', async (t) => {
  const records = unitRecords(20_000, 4);
  // Long attrs make the body far larger than the socket buffers, so the server must wait for drains.
  const padded = records.map((r) => ({ ...r, attrs: { pad: { Str: 'x'.repeat(500) } } }));
  for (let i = 0; i < padded.length; i += 5_000) {
    t.is((await call(server, 'POST', '/collections/slowread/upsert', { records: padded.slice(i, i + 5_000) })).status, 200);
  }
  const read = (pauseMs: number, leave: boolean) =>
    new Promise<string>((resolve, reject) => {
      http.get(`${server.url}/collections/slowread/records`, (res) => {
        let body = '';
        res.once('data', async (first) => {
          body += first;
          if (leave) {
            res.destroy();
            return resolve('');
          }
          res.pause();
          t.is((await call(server, 'GET', '/health')).status, 200, 'the server answers while the stream waits');
          await sleep(pauseMs);
          res.on('data', (d) => (body += d));
          res.resume();
        });
        res.on('end', () => resolve(body));
        res.on('error', reject);
      });
    });
  await read(0, true);
  const body = await read(300, false);
  t.true(body.length > 10_000_000);
  t.is(JSON.parse(body).length, records.length);
  t.is((await call(server, 'GET', '/health')).status, 200);
});
