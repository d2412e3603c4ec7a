// POST /list and POST /aggregate over real HTTP, plus how the new filter/metadata routes sit behind
// --read-only, --token and /metrics.
import test, { type ExecutionContext } from 'ava';
import { type Answer, type Server, call, startServer, tempDir, unitRecords } from './helpers';

let server: Server;

/** Six records with every interesting shape of `k` and `g`; insertion order a..f. */
const SHAPES = [
  { id: 'a', vector: [1, 0, 0, 0], attrs: { g: { Str: 'x' }, k: { Int: 3 }, f: { Float: 1.5 }, ts: { DateTime: 0 } } },
  { id: 'b', vector: [0.99, 0.1, 0, 0], attrs: { g: { Str: 'x' }, k: { Int: 1 } } },
  { id: 'c', vector: [0.98, 0.2, 0, 0], attrs: { g: { Str: 'y' }, k: { Str: 's' } } },
  { id: 'd', vector: [0.97, 0.3, 0, 0], attrs: { g: 'Null', k: { Int: 2 }, f: { Float: 2 } } },
  { id: 'e', vector: [0.96, 0.4, 0, 0] },
  { id: 'f', attrs: { k: { List: ['p'] } } },
];

test.before(async () => {
  server = await startServer();
  await call(server, 'POST', '/collections/shapes/upsert', { records: SHAPES });
  await call(server, 'POST', '/collections/other/upsert', { records: [{ id: 'o1', vector: [0, 1, 0, 0], attrs: { g: { Str: 'x' }, k: { Int: 10 } } }] });
});
test.after.always(() => server?.stop());

const ids = (r: Answer) => (r.json as { id: string }[]).map((h) => h.id);

async function snapshot() {
  const [collections, shapes, versions] = await Promise.all([
    call(server, 'GET', '/collections'),
    call(server, 'GET', '/collections/shapes/records'),
    call(server, 'GET', '/versions'),
  ]);
  return { collections: collections.text, shapes: shapes.text, version: versions.json.commit_version };
}

function isError(t: ExecutionContext, r: Answer, status: number, message: RegExp, label: string) {
  t.is(r.status, status, `${label}: ${r.text}`);
  t.deepEqual(Object.keys(r.json ?? {}), ['error'], `${label}: {error} body`);
  if (typeof r.json?.error === 'string') t.regex(r.json.error, message, label);
}

// ---- /list ----

test('/list answers an array of Hit with score 0 and no vector', async (t) => {
  const r = await call(server, 'POST', '/list', { scope: ['shapes'] });
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /^application\/json/);
  t.true(Array.isArray(r.json));
  t.is(r.json.length, SHAPES.length);
  for (const hit of r.json) {
    t.deepEqual(Object.keys(hit).sort(), ['attrs', 'collection', 'id', 'score']);
    t.is(hit.collection, 'shapes');
    t.is(hit.score, 0);
  }
  t.deepEqual(r.json.find((h: { id: string }) => h.id === 'a').attrs, SHAPES[0].attrs);
  t.deepEqual(r.json.find((h: { id: string }) => h.id === 'e').attrs, {});
});

test('/list without order_by keeps storage (insertion) order', async (t) => {
  t.deepEqual(ids(await call(server, 'POST', '/list', { scope: ['shapes'] })), ['a', 'b', 'c', 'd', 'e', 'f']);
});

test('/list includes text-only records (no vector needed)', async (t) => {
  t.true(ids(await call(server, 'POST', '/list', { scope: ['shapes'], filter: [{ Contains: ['k', { Str: 'p' }] }] })).includes('f'));
});

test.serial('/list: an empty or omitted scope covers every collection', async (t) => {
  const all = await call(server, 'POST', '/list', {});
  const empty = await call(server, 'POST', '/list', { scope: [] });
  t.is(all.text, empty.text);
  t.true(ids(all).includes('o1'));
  t.true(ids(all).includes('a'));
});

test('/list: limit defaults to 100', async (t) => {
  t.is((await call(server, 'POST', '/collections/many/upsert', { records: unitRecords(150, 4) })).status, 200);
  const r = await call(server, 'POST', '/list', { scope: ['many'] });
  t.is(r.json.length, 100);
  t.is((await call(server, 'POST', '/list', { scope: ['many'], limit: 1000 })).json.length, 150);
});

test('/list: offset and limit cut one page; an offset past the end is an empty array', async (t) => {
  t.deepEqual(ids(await call(server, 'POST', '/list', { scope: ['shapes'], offset: 2, limit: 2 })), ['c', 'd']);
  t.deepEqual((await call(server, 'POST', '/list', { scope: ['shapes'], offset: 100 })).json, []);
  t.deepEqual((await call(server, 'POST', '/list', { scope: ['shapes'], limit: 0 })).json, []);
});

test('/list: a filter selects and the page is cut after filtering', async (t) => {
  const r = await call(server, 'POST', '/list', { scope: ['shapes'], filter: [{ Ne: ['g', { Str: 'y' }] }], offset: 1, limit: 2 });
  t.deepEqual(ids(r), ['b', 'd']);
});

test('/list: order_by sorts the whole match set before the page is cut', async (t) => {
  t.deepEqual(ids(await call(server, 'POST', '/list', { scope: ['shapes'], order_by: { field: 'k' }, limit: 2 })), ['b', 'd']);
  t.deepEqual(ids(await call(server, 'POST', '/list', { scope: ['shapes'], order_by: { field: 'k', descending: true }, limit: 2 })), ['a', 'd']);
  t.deepEqual(ids(await call(server, 'POST', '/list', { scope: ['shapes'], order_by: { field: 'k', descending: true }, offset: 2, limit: 1 })), ['b']);
});

test('/list: values that do not order against the first orderable one form a trailing bucket that stays trailing when reversed', async (t) => {
  // k: a Int 3, b Int 1, c Str, d Int 2, e absent, f List -> Ints sort, c/e/f trail.
  const asc = ids(await call(server, 'POST', '/list', { scope: ['shapes'], order_by: { field: 'k' } }));
  const desc = ids(await call(server, 'POST', '/list', { scope: ['shapes'], order_by: { field: 'k', descending: true } }));
  t.deepEqual(asc.slice(0, 3), ['b', 'd', 'a']);
  t.deepEqual(desc.slice(0, 3), ['a', 'd', 'b']);
  t.deepEqual(asc.slice(3).sort(), ['c', 'e', 'f']);
  t.deepEqual(desc.slice(3).sort(), ['c', 'e', 'f']);
});

test('/list: include_attributes and exclude_attributes project attrs', async (t) => {
  const inc = await call(server, 'POST', '/list', { scope: ['shapes'], include_attributes: ['g'], limit: 1 });
  t.deepEqual(inc.json[0].attrs, { g: { Str: 'x' } });
  const exc = await call(server, 'POST', '/list', { scope: ['shapes'], exclude_attributes: ['g', 'f', 'ts'], limit: 1 });
  t.deepEqual(exc.json[0].attrs, { k: { Int: 3 } });
});

test('/list: a whole number stored as Float stays Float and Null stays the bare string', async (t) => {
  const r = await call(server, 'POST', '/list', { scope: ['shapes'], filter: [{ Eq: ['g', 'Null'] }] });
  t.deepEqual(ids(r), ['d']);
  t.regex(r.text, /"f":\{"Float":2(\.0)?\}/);
  t.true(r.text.includes('"g":"Null"'));
});

test('/list: a missing collection in scope contributes nothing', async (t) => {
  t.deepEqual((await call(server, 'POST', '/list', { scope: ['nowhere'] })).json, []);
  t.deepEqual(ids(await call(server, 'POST', '/list', { scope: ['nowhere', 'other'] })), ['o1']);
});

test.serial('/list: include and exclude together, limit above 10000, negative paging and unknown fields are 400', async (t) => {
  const before = await snapshot();
  const cases: [unknown, RegExp][] = [
    [{ include_attributes: ['g'], exclude_attributes: ['k'] }, /include_attributes.*exclude_attributes/],
    [{ limit: 10_001 }, /limit/],
    [{ limit: -1 }, /limit/],
    [{ offset: -1 }, /offset/],
    [{ order_by: { descending: true } }, /order_by/],
    [{ scope: 'shapes' }, /scope/],
    [{ bogus: 1 }, /bogus/],
    ['{"limit": ', /JSON|malformed|parse|end/i],
  ];
  for (const [body, message] of cases) isError(t, await call(server, 'POST', '/list', body), 400, message, JSON.stringify(body));
  t.deepEqual(await snapshot(), before);
});

// ---- /aggregate ----

test('/aggregate answers {count, sums} and omits groups without group_by', async (t) => {
  const r = await call(server, 'POST', '/aggregate', { scope: ['shapes'] });
  t.is(r.status, 200);
  t.deepEqual(r.json, { count: 6, sums: {} });
});

test('/aggregate: a filter matching nothing gives count 0, not an error', async (t) => {
  const r = await call(server, 'POST', '/aggregate', { scope: ['shapes'], filter: [{ Eq: ['g', { Str: 'none' }] }], sum: ['k'] });
  t.is(r.status, 200);
  t.is(r.json.count, 0);
  t.false('groups' in r.json);
});

test('/aggregate: an empty scope collection or a missing one counts 0', async (t) => {
  await call(server, 'POST', '/collections/empty_agg');
  t.is((await call(server, 'POST', '/aggregate', { scope: ['empty_agg'] })).json.count, 0);
  t.is((await call(server, 'POST', '/aggregate', { scope: ['agg_nowhere'] })).json.count, 0);
});

test('/aggregate: sums stay Int while every addend is Int, skipping missing and non-numeric values', async (t) => {
  const r = await call(server, 'POST', '/aggregate', { scope: ['shapes'], sum: ['k'] });
  t.deepEqual(r.json, { count: 6, sums: { k: { Int: 6 } } }); // 3 + 1 + 2; Str, List and absent skipped
});

test('/aggregate: a sum becomes Float once a Float joins', async (t) => {
  await call(server, 'POST', '/collections/mixed_sum/upsert', {
    records: [
      { id: '1', attrs: { v: { Int: 2 } } },
      { id: '2', attrs: { v: { Float: 0.5 } } },
      { id: '3', attrs: { v: { Int: 1 } } },
    ],
  });
  const r = await call(server, 'POST', '/aggregate', { scope: ['mixed_sum'], sum: ['v'] });
  t.deepEqual(r.json.sums, { v: { Float: 3.5 } });
  t.deepEqual((await call(server, 'POST', '/aggregate', { scope: ['shapes'], sum: ['f'] })).json.sums, { f: { Float: 3.5 } });
});

test('/aggregate: Int sums are exact past 2^53', async (t) => {
  const body = '{"records":[{"id":"1","attrs":{"v":{"Int":9007199254740993}}},{"id":"2","attrs":{"v":{"Int":2}}}]}';
  await call(server, 'POST', '/collections/exact_sum/upsert', body);
  const r = await call(server, 'POST', '/aggregate', { scope: ['exact_sum'], sum: ['v'] });
  t.true(r.text.includes('{"Int":9007199254740995}'), r.text);
});

test('/aggregate: group_by orders groups by count descending; the missing-attribute group is distinct from Null', async (t) => {
  const r = await call(server, 'POST', '/aggregate', { scope: ['shapes'], group_by: 'g', sum: ['k'] });
  t.is(r.status, 200);
  t.is(r.json.count, 6);
  const groups = r.json.groups as { value: unknown; count: number; sums: Record<string, unknown> }[];
  t.deepEqual(
    groups.map((g) => g.count),
    [2, 2, 1, 1],
  );
  const missing = groups.find((g) => g.value === null);
  const nul = groups.find((g) => g.value === 'Null');
  t.truthy(missing, 'the missing-attribute group has value null');
  t.truthy(nul, 'the Null value has its own group');
  t.is(missing!.count, 2); // e, f
  t.is(nul!.count, 1); // d
  t.deepEqual(nul!.sums.k, { Int: 2 });
  const x = groups.find((g) => JSON.stringify(g.value) === '{"Str":"x"}');
  t.deepEqual(x, { value: { Str: 'x' }, count: 2, sums: { k: { Int: 4 } } });
  t.false('groups_truncated' in r.json, 'present only when the cap was hit');
});

test('/aggregate: group order is deterministic across calls and with ties', async (t) => {
  const a = await call(server, 'POST', '/aggregate', { scope: ['shapes'], group_by: 'g' });
  const b = await call(server, 'POST', '/aggregate', { scope: ['shapes'], group_by: 'g' });
  t.is(a.text, b.text);
});

test('/aggregate: more than 10000 distinct values keep 10000 groups and set groups_truncated', async (t) => {
  const records = Array.from({ length: 10_001 }, (_, i) => ({ id: `g${i}`, attrs: { u: { Int: i } } }));
  t.is((await call(server, 'POST', '/collections/distinct/upsert', { records })).status, 200);
  const r = await call(server, 'POST', '/aggregate', { scope: ['distinct'], group_by: 'u' });
  t.is(r.json.count, 10_001);
  t.is(r.json.groups.length, 10_000);
  t.is(r.json.groups_truncated, true);
  const exact = await call(server, 'POST', '/aggregate', { scope: ['distinct'], group_by: 'u', filter: [{ Lt: ['u', { Int: 10_000 }] }] });
  t.is(exact.json.groups.length, 10_000);
  t.false(exact.json.groups_truncated === true, 'exactly 10000 distinct values is not truncated');
});

test.serial('/aggregate: malformed bodies are 400 with an error body', async (t) => {
  const before = await snapshot();
  const cases: [unknown, RegExp][] = [
    [{ sum: 'k' }, /sum/],
    [{ group_by: 5 }, /group_by/],
    [{ bogus: 1 }, /bogus/],
    [{ filter: {} }, /filter/],
    ['[]', /object/],
  ];
  for (const [body, message] of cases) isError(t, await call(server, 'POST', '/aggregate', body), 400, message, JSON.stringify(body));
  t.deepEqual(await snapshot(), before);
});

// ---- --read-only, --token, /metrics ----

test('--read-only: filter-index and filter-delete are 403; /list, /aggregate, /search/similar and /search/batch still answer', async (t) => {
  const data = tempDir();
  const writer = await startServer(['--data', data]);
  t.teardown(() => writer.stop());
  await call(writer, 'POST', '/collections/ro/upsert', { records: unitRecords(5, 4).map((r) => ({ ...r, attrs: { t: { Str: 'quick fox' } } })) });
  t.is((await call(writer, 'POST', '/flush')).status, 200);

  const reader = await startServer(['--data', data, '--read-only']);
  t.teardown(() => reader.stop());
  for (const [path, body] of [
    ['/collections/ro/filter-index', { fields: ['t'] }],
    ['/collections/ro/filter-index', { fields: [] }],
    ['/collections/ro/delete', { filter: [] }],
    ['/collections/ro/delete', { ids: ['r0'], filter: [{ ContainsAllTokens: ['t', 'fox'] }] }],
  ] as const) {
    const r = await call(reader, 'POST', path, body);
    t.is(r.status, 403, `${path} ${JSON.stringify(body)}`);
    t.deepEqual(Object.keys(r.json ?? {}), ['error']);
  }
  const list = await call(reader, 'POST', '/list', { scope: ['ro'] });
  t.is(list.status, 200);
  t.is(list.json.length, 5);
  t.deepEqual((await call(reader, 'POST', '/aggregate', { scope: ['ro'] })).json, { count: 5, sums: {} });
  const similar = await call(reader, 'POST', '/search/similar', { collection: 'ro', id: 'r0' });
  t.is(similar.status, 200);
  t.is(similar.json.length, 4);
  const batch = await call(reader, 'POST', '/search/batch', {
    queries: [{ query: [1, 0, 0, 0] }, { query: [0, 1, 0, 0], filter: [{ ContainsAnyToken: ['t', 'fox'] }] }],
  });
  t.is(batch.status, 200);
  t.is(batch.json.results.length, 2);
  t.is((await call(reader, 'GET', '/collections/ro/records')).json.length, 5, 'nothing was deleted');
});

test('--token: /list, /aggregate, /search/similar, /search/batch, filter-index and filter-delete answer 401 without the token', async (t) => {
  const token = 'filter-secret';
  const s = await startServer(['--token', token]);
  t.teardown(() => s.stop());
  const auth = { Authorization: `Bearer ${token}` };
  t.is((await call(s, 'POST', '/collections/tk/upsert', { records: unitRecords(3, 4) }, auth)).status, 200);
  const routes: [string, unknown][] = [
    ['/list', {}],
    ['/aggregate', { group_by: 'x' }],
    ['/search/similar', { collection: 'tk', id: 'r0' }],
    ['/search/batch', { queries: [{ query: [1, 0, 0, 0] }] }],
    ['/collections/tk/filter-index', { fields: ['t'] }],
    ['/collections/tk/delete', { filter: [{ Eq: ['none', { Int: 1 }] }] }],
  ];
  for (const [path, body] of routes) {
    for (const headers of [{}, { Authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const r = await call(s, 'POST', path, body, headers);
      t.is(r.status, 401, `${path} ${JSON.stringify(headers)}`);
      t.deepEqual(Object.keys(r.json ?? {}), ['error']);
    }
    t.is((await call(s, 'POST', path, body, auth)).status, 200, `${path} with the token`);
  }
  t.is((await call(s, 'GET', '/collections/tk/records', undefined, auth)).json.length, 3, 'the unauthorized filter-delete removed nothing');
});

test('/metrics labels /search/similar, /search/batch, /list, /aggregate and filter-index by their templates', async (t) => {
  await call(server, 'POST', '/collections/metered-secret-name/upsert', { records: unitRecords(2, 4) });
  await call(server, 'POST', '/search/similar', { collection: 'metered-secret-name', id: 'r0' });
  await call(server, 'POST', '/search/similar', { collection: 'metered-secret-name', id: 'absent-id' });
  await call(server, 'POST', '/search/batch', { queries: [{ query: [1, 0, 0, 0], scope: ['metered-secret-name'] }] });
  await call(server, 'POST', '/list', { scope: ['metered-secret-name'] });
  await call(server, 'POST', '/aggregate', { scope: ['metered-secret-name'] });
  await call(server, 'POST', '/collections/metered-secret-name/filter-index', { fields: ['t'] });
  const r = await call(server, 'GET', '/metrics');
  t.regex(r.text, /svc_http_requests_total\{route="\/search\/similar",status="2xx"\} [1-9]/);
  t.regex(r.text, /svc_http_requests_total\{route="\/search\/similar",status="4xx"\} [1-9]/);
  t.regex(r.text, /svc_http_requests_total\{route="\/list",status="2xx"\} [1-9]/);
  t.regex(r.text, /svc_http_requests_total\{route="\/aggregate",status="2xx"\} [1-9]/);
  t.regex(r.text, /svc_http_requests_total\{route="\/search\/batch",status="2xx"\} [1-9]/);
  t.regex(r.text, /svc_http_requests_total\{route="\/collections\/\{name\}\/filter-index",status="2xx"\} [1-9]/);
  t.regex(r.text, /svc_http_request_duration_seconds_bucket\{le="[^"]+",route="\/search\/similar"\} \d+/);
  t.regex(r.text, /svc_http_request_duration_seconds_bucket\{le="[^"]+",route="\/list"\} \d+/);
  t.false(r.text.includes('metered-secret-name'));
  t.false(r.text.includes('absent-id'));
});
