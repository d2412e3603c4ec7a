// /search options (limit_per, diversity, rank_by, projection and paging limits), /search/similar and
// /search/batch over real HTTP.
import test, { type ExecutionContext } from 'ava';
import { type Answer, type Server, call, startServer, unitRecords } from './helpers';

let server: Server;

type Hit = { collection: string; id: string; score: number; attrs: Record<string, unknown> };
const ids = (r: Answer) => (r.json as Hit[]).map((h) => h.id);
const Q = [1, 0, 0, 0];

test.before(async () => {
  server = await startServer();
  // opts: one ranking a > b > c > d > e > f along the query, with groups on g (x, x, y, Null, absent, absent).
  await call(server, 'POST', '/collections/opts/upsert', {
    records: [
      { id: 'a', vector: [1, 0, 0, 0], attrs: { g: { Str: 'x' }, ts: { DateTime: 0 }, n: { Int: 10 } } },
      { id: 'b', vector: [0.99, 0.1, 0, 0], attrs: { g: { Str: 'x' }, ts: { DateTime: 1000 }, n: { Int: 30 } } },
      { id: 'c', vector: [0.98, 0.2, 0, 0], attrs: { g: { Str: 'y' }, ts: { Int: 2000 } } },
      { id: 'd', vector: [0.97, 0.3, 0, 0], attrs: { g: 'Null', ts: { Str: 'not a time' } } },
      { id: 'e', vector: [0.96, 0.4, 0, 0] },
      { id: 'f', vector: [0.95, 0.5, 0, 0] },
      { id: 'text', attrs: { g: { Str: 'x' } } },
    ],
  });
  // sim: a source, its exact duplicate under another id, and the same id in a second collection.
  await call(server, 'POST', '/collections/sim/upsert', {
    records: [
      { id: 'src', vector: [1, 0, 0, 0], attrs: { k: { Int: 1 } } },
      { id: 'dup', vector: [1, 0, 0, 0], attrs: { k: { Int: 2 } } },
      { id: 'near', vector: [0.8, 0.6, 0, 0], attrs: { k: { Int: 3 } } },
      { id: 'far', vector: [0, 0, 1, 0], attrs: { k: { Int: 4 } } },
      { id: 'textonly', attrs: { k: { Int: 5 } } },
    ],
  });
  await call(server, 'POST', '/collections/sim2/upsert', {
    records: [
      { id: 'src', vector: [1, 0, 0, 0] },
      { id: 'other', vector: [0, 1, 0, 0] },
    ],
  });
});
test.after.always(() => server?.stop());

async function snapshot() {
  const [collections, opts, sim, versions] = await Promise.all([
    call(server, 'GET', '/collections'),
    call(server, 'GET', '/collections/opts/records'),
    call(server, 'GET', '/collections/sim/records'),
    call(server, 'GET', '/versions'),
  ]);
  return { collections: collections.text, opts: opts.text, sim: sim.text, version: versions.json.commit_version };
}

function isError(t: ExecutionContext, r: Answer, message: RegExp, label: string) {
  t.is(r.status, 400, `${label}: ${r.text}`);
  t.deepEqual(Object.keys(r.json ?? {}), ['error'], `${label}: {error} body`);
  if (typeof r.json?.error === 'string') t.regex(r.json.error, message, label);
}

/** The same search options on /search, /search/similar and inside a /search/batch leg. */
async function refusedOnEverySearchRoute(t: ExecutionContext, options: Record<string, unknown> | string, message: RegExp) {
  const before = await snapshot();
  const raw = typeof options === 'string' ? options : JSON.stringify(options).slice(1, -1);
  const bodies: [string, string][] = [
    ['/search', `{"query":[1,0,0,0],${raw}}`],
    ['/search/similar', `{"collection":"sim","id":"src",${raw}}`],
    ['/search/batch', `{"queries":[{"query":[1,0,0,0]},{"query":[0,1,0,0],${raw}}]}`],
  ];
  for (const [path, body] of bodies) isError(t, await call(server, 'POST', path, body), message, `${path} ${raw}`);
  t.deepEqual(await snapshot(), before, 'store unchanged');
}

// ---- Validation: each listed 400 ----

test.serial('include_attributes together with exclude_attributes is 400', async (t) => {
  await refusedOnEverySearchRoute(t, { include_attributes: ['g'], exclude_attributes: ['n'] }, /include_attributes.*exclude_attributes/);
});

test.serial('offset + top_k above 10000 is 400, not a shortened page', async (t) => {
  await refusedOnEverySearchRoute(t, { offset: 9_991, top_k: 10 }, /10000/);
  await refusedOnEverySearchRoute(t, { top_k: 10_001 }, /10000/);
});

test.serial('offset + top_k of exactly 10000 is accepted and an offset past the last hit is empty', async (t) => {
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['opts'], offset: 9_990, top_k: 10 });
  t.is(r.status, 200);
  t.deepEqual(r.json, []);
  t.is((await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src', offset: 0, top_k: 10_000 })).status, 200);
});

test.serial('diversity outside [0, 1] is 400 (1.5 and -0.1)', async (t) => {
  await refusedOnEverySearchRoute(t, { diversity: 1.5 }, /diversity/);
  await refusedOnEverySearchRoute(t, { diversity: -0.1 }, /diversity/);
});

test.serial('diversity that is not a finite number is 400 ("x" and 1e999)', async (t) => {
  await refusedOnEverySearchRoute(t, { diversity: 'x' }, /diversity/);
  await refusedOnEverySearchRoute(t, '"diversity":1e999', /./);
  await refusedOnEverySearchRoute(t, { diversity: [0.5] }, /diversity/);
});

test.serial('a malformed rank_by is 400 naming the part', async (t) => {
  const decay = (extra: Record<string, unknown>) => ({ rank_by: { Decay: { field: 'ts', origin: 1000, ...extra } } });
  const cases: [Record<string, unknown>, RegExp][] = [
    [decay({ scale: 0 }), /scale/],
    [decay({ scale: -5 }), /scale/],
    [decay({ decay: 0 }), /decay/],
    [decay({ decay: 1 }), /decay/],
    [decay({ decay: 1.5 }), /decay/],
    [decay({ lambda: -1 }), /lambda/],
    [decay({ count_field: 'n', count_scale: 0 }), /count_scale/],
    [decay({ count_lambda: -0.5 }), /count_lambda/],
    [decay({ bogus: 1 }), /bogus/],
    [{ rank_by: { Decay: { field: 'ts' } } }, /origin/],
    [{ rank_by: { Decay: { origin: 0 } } }, /field/],
    [{ rank_by: { Boost: { field: 'ts' } } }, /Decay/],
    [{ rank_by: 'Decay' }, /rank_by/],
  ];
  for (const [options, message] of cases) await refusedOnEverySearchRoute(t, options, message);
});

test.serial('limit_per with max 0 (or without max) is 400', async (t) => {
  await refusedOnEverySearchRoute(t, { limit_per: { field: 'g', max: 0 } }, /limit_per\.max/);
  await refusedOnEverySearchRoute(t, { limit_per: { field: 'g' } }, /limit_per\.max/);
  await refusedOnEverySearchRoute(t, { limit_per: { max: 1 } }, /limit_per/);
});

test.serial('/search/batch with 0 or 17 queries is 400; 16 is accepted', async (t) => {
  const before = await snapshot();
  const legs = (n: number) => ({ queries: Array.from({ length: n }, () => ({ query: Q, scope: ['opts'] })) });
  isError(t, await call(server, 'POST', '/search/batch', legs(0)), /1 to 16/, '0 legs');
  isError(t, await call(server, 'POST', '/search/batch', legs(17)), /1 to 16/, '17 legs');
  isError(t, await call(server, 'POST', '/search/batch', {}), /queries/, 'no queries');
  const sixteen = await call(server, 'POST', '/search/batch', legs(16));
  t.is(sixteen.status, 200);
  t.is(sixteen.json.results.length, 16);
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/batch: plan or rerank inside a leg is 400 naming the leg', async (t) => {
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/search/batch', { queries: [{ query: Q }, { query: Q, plan: true }] }), /queries\[1\]\.plan/, 'plan');
  isError(t, await call(server, 'POST', '/search/batch', { queries: [{ query: Q, rerank: { query: 'x' } }] }), /queries\[0\]\.rerank/, 'rerank');
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/batch: fuse.weights of a different length than queries is 400; empty weights are accepted', async (t) => {
  const before = await snapshot();
  const queries = [{ query: Q }, { query: [0, 1, 0, 0] }];
  isError(t, await call(server, 'POST', '/search/batch', { queries, fuse: { weights: [1] } }), /weights/, 'one short');
  isError(t, await call(server, 'POST', '/search/batch', { queries, fuse: { weights: [1, 1, 1] } }), /weights/, 'one long');
  isError(t, await call(server, 'POST', '/search/batch', { queries, fuse: { weights: [1, 'x'] } }), /weights/, 'not a number');
  t.is((await call(server, 'POST', '/search/batch', { queries, fuse: { weights: [] } })).status, 200);
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/batch: one malformed leg makes the whole call 400 with no partial results', async (t) => {
  const before = await snapshot();
  const r = await call(server, 'POST', '/search/batch', { queries: [{ query: Q }, { query: Q }, { query: [1, 0] }] });
  isError(t, r, /queries\[2\]/, 'bad last leg');
  t.false('results' in (r.json ?? {}));
  isError(
    t,
    await call(server, 'POST', '/search/batch', { queries: [{ query: Q, filter: [{ Regex: ['g', '('] }] }, { query: Q }] }),
    /queries\[0\]|Regex/,
    'bad filter',
  );
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/similar: a missing source record is 400 naming the id', async (t) => {
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'ghost-id' }), /ghost-id/, 'missing id');
  isError(t, await call(server, 'POST', '/search/similar', { collection: 'ghost-coll', id: 'src-in-ghost' }), /src-in-ghost/, 'missing collection');
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/similar: a source without a stored vector (text-only) is 400 naming the id', async (t) => {
  const before = await snapshot();
  const r = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'textonly' });
  isError(t, r, /textonly/, 'vectorless');
  t.regex(r.json.error, /vector/);
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/similar: a deleted source, or one overwritten without a vector, is 400 naming the id', async (t) => {
  await call(server, 'POST', '/collections/sim_gone/upsert', {
    records: [
      { id: 'gone-src', vector: Q },
      { id: 'flat-src', vector: Q },
      { id: 'keep', vector: Q },
    ],
  });
  await call(server, 'POST', '/collections/sim_gone/delete', { ids: ['gone-src'] });
  await call(server, 'POST', '/collections/sim_gone/upsert', { records: [{ id: 'flat-src', attrs: { k: { Int: 1 } } }] });
  const before = await snapshot();
  isError(t, await call(server, 'POST', '/search/similar', { collection: 'sim_gone', id: 'gone-src' }), /gone-src/, 'deleted');
  isError(t, await call(server, 'POST', '/search/similar', { collection: 'sim_gone', id: 'flat-src' }), /flat-src/, 'overwritten text-only');
  t.deepEqual(await snapshot(), before);
});

test.serial('/search/similar: query, names, name_weights, pool and rerank are not accepted; collection and id are required', async (t) => {
  const before = await snapshot();
  const base = { collection: 'sim', id: 'src' };
  for (const [extra, message] of [
    [{ query: Q }, /query/],
    [{ names: [] }, /names/],
    [{ name_weights: {} }, /name_weights/],
    [{ pool: 'Max' }, /pool/],
    [{ rerank: { query: 'x' } }, /rerank/],
  ] as const) {
    isError(t, await call(server, 'POST', '/search/similar', { ...base, ...extra }), message, JSON.stringify(extra));
  }
  isError(t, await call(server, 'POST', '/search/similar', { id: 'src' }), /collection/, 'no collection');
  isError(t, await call(server, 'POST', '/search/similar', { collection: 'sim' }), /id/, 'no id');
  t.deepEqual(await snapshot(), before);
});

// ---- /search/similar behaviour ----

test('/search/similar answers /search-shaped hits without the source record', async (t) => {
  const r = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src' });
  t.is(r.status, 200);
  for (const hit of r.json as Hit[]) t.deepEqual(Object.keys(hit).sort(), ['attrs', 'collection', 'id', 'score']);
  t.deepEqual(ids(r), ['dup', 'near', 'far']);
  t.false((r.json as Hit[]).some((h) => h.collection === 'sim' && h.id === 'src'));
});

test('/search/similar: a genuine duplicate of the source still comes back, with the top score', async (t) => {
  const r = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src', top_k: 1 });
  t.deepEqual(ids(r), ['dup']);
  t.is(r.json[0].score, 1);
});

test('/search/similar: an omitted or empty scope searches only the source collection', async (t) => {
  const omitted = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src' });
  const empty = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src', scope: [] });
  t.is(empty.text, omitted.text);
  t.true((omitted.json as Hit[]).every((h) => h.collection === 'sim'));
});

test('/search/similar: exclusion is by (collection, id), so the same id in another collection is returned', async (t) => {
  const r = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src', scope: ['sim', 'sim2'] });
  const keys = (r.json as Hit[]).map((h) => `${h.collection}/${h.id}`);
  t.deepEqual(keys.slice(0, 2), ['sim/dup', 'sim2/src'], 'tie on score 1 broken by collection');
  t.false(keys.includes('sim/src'));
  const onlyOther = await call(server, 'POST', '/search/similar', { collection: 'sim', id: 'src', scope: ['sim2'] });
  t.deepEqual(
    (onlyOther.json as Hit[]).map((h) => `${h.collection}/${h.id}`),
    ['sim2/src', 'sim2/other'],
  );
});

test('/search/similar equals /search with the source vector minus the source', async (t) => {
  const similar = await call(server, 'POST', '/search/similar', { collection: 'opts', id: 'c', top_k: 3, include_attributes: ['g'] });
  const search = await call(server, 'POST', '/search', { query: [0.98, 0.2, 0, 0], scope: ['opts'], top_k: 4, include_attributes: ['g'] });
  t.deepEqual(similar.json, (search.json as Hit[]).filter((h) => h.id !== 'c').slice(0, 3));
});

// ---- /search/batch behaviour ----

test('/search/batch answers {results: [[Hit]]}, one ranking per query in request order, each with its own scope, filter and top_k', async (t) => {
  const legs = [
    { query: Q, scope: ['opts'], top_k: 2 },
    { query: Q, scope: ['sim'], top_k: 3, filter: [{ Ge: ['k', { Int: 2 }] }] },
    { query: [0, 0, 1, 0], scope: ['sim'], top_k: 1, include_attributes: [] },
  ];
  const r = await call(server, 'POST', '/search/batch', { queries: legs });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json), ['results']);
  t.is(r.json.results.length, 3);
  for (let i = 0; i < legs.length; i++) {
    const alone = await call(server, 'POST', '/search', legs[i]);
    t.deepEqual(r.json.results[i], alone.json, `leg ${i} equals the same body sent to /search`);
  }
  t.deepEqual(
    r.json.results[1].map((h: Hit) => h.id),
    ['dup', 'near', 'far'],
  );
});

test('/search/batch with fuse answers {fused: [Hit]} scored by 1-based RRF (weight / (rrf_k + rank))', async (t) => {
  const queries = [
    { query: Q, scope: ['opts'], top_k: 3 }, // a, b, c
    { query: [0, 1, 0, 0], scope: ['opts'], top_k: 3 }, // f, e, d
  ];
  const r = await call(server, 'POST', '/search/batch', { queries, fuse: {} });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json), ['fused']);
  const fused = r.json.fused as Hit[];
  t.is(fused.length, 6);
  const byId = Object.fromEntries(fused.map((h) => [h.id, h.score]));
  // rrf_k defaults to 60; rank 1 scores 1/61.
  for (const [id, rank] of [
    ['a', 1],
    ['b', 2],
    ['c', 3],
    ['f', 1],
    ['e', 2],
    ['d', 3],
  ] as const)
    t.true(Math.abs(byId[id] - 1 / (60 + rank)) < 1e-6, `${id}: ${byId[id]}`);
  t.deepEqual(
    fused.map((h) => h.id),
    ['a', 'f', 'b', 'e', 'c', 'd'],
    'ties broken by (collection, id)',
  );
});

test('/search/batch fuse: a hit in several legs sums its weighted RRF terms, with rrf_k and top_k honoured', async (t) => {
  const queries = [
    { query: Q, scope: ['opts'], top_k: 3 }, // a 1, b 2, c 3
    { query: [0.98, 0.2, 0, 0], scope: ['opts'], top_k: 3 }, // c 1, then b and d
  ];
  const r = await call(server, 'POST', '/search/batch', { queries, fuse: { rrf_k: 1, weights: [2, 0.5], top_k: 2 } });
  const fused = r.json.fused as Hit[];
  t.is(fused.length, 2);
  const leg2 = (await call(server, 'POST', '/search', queries[1])).json as Hit[];
  const rank2 = (id: string) => leg2.findIndex((h) => h.id === id) + 1;
  const expect = (id: string, rank1: number) => 2 / (1 + rank1) + (rank2(id) ? 0.5 / (1 + rank2(id)) : 0);
  t.is(fused[0].id, 'a');
  t.true(Math.abs(fused[0].score - expect('a', 1)) < 1e-6, `a: ${fused[0].score} vs ${expect('a', 1)}`);
  t.is(fused[1].id, 'b');
  t.true(Math.abs(fused[1].score - expect('b', 2)) < 1e-6, `b: ${fused[1].score} vs ${expect('b', 2)}`);
});

test('/search/batch fuse: top_k defaults to 10', async (t) => {
  await call(server, 'POST', '/collections/fuse_many/upsert', { records: unitRecords(30, 4) });
  const r = await call(server, 'POST', '/search/batch', { queries: [{ query: Q, scope: ['fuse_many'], top_k: 20 }], fuse: {} });
  t.is(r.json.fused.length, 10);
});

// ---- limit_per ----

test('limit_per caps hits per value; records missing the attribute share one group', async (t) => {
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['opts'], limit_per: { field: 'g', max: 1 } });
  t.deepEqual(ids(r), ['a', 'c', 'd', 'e']); // x: a; y: c; Null: d; missing: e (f dropped)
  const two = await call(server, 'POST', '/search', { query: Q, scope: ['opts'], limit_per: { field: 'g', max: 2 } });
  t.deepEqual(ids(two), ['a', 'b', 'c', 'd', 'e', 'f']);
});

test('limit_per reads the stored record, so projection cannot lift the cap', async (t) => {
  const excluded = await call(server, 'POST', '/search', { query: Q, scope: ['opts'], limit_per: { field: 'g', max: 1 }, exclude_attributes: ['g'] });
  t.deepEqual(ids(excluded), ['a', 'c', 'd', 'e']);
  for (const hit of excluded.json as Hit[]) t.false('g' in hit.attrs);
  const included = await call(server, 'POST', '/search', { query: Q, scope: ['opts'], limit_per: { field: 'g', max: 1 }, include_attributes: [] });
  t.deepEqual(ids(included), ['a', 'c', 'd', 'e']);
});

test('limit_per: no page carries more than max hits for one value', async (t) => {
  const records = unitRecords(200, 4).map((r, i) => ({ ...r, attrs: { bucket: { Int: i % 4 } } }));
  await call(server, 'POST', '/collections/capped/upsert', { records });
  for (const offset of [0, 5, 10, 40]) {
    const r = await call(server, 'POST', '/search', { query: Q, scope: ['capped'], top_k: 5, offset, limit_per: { field: 'bucket', max: 2 } });
    t.is(r.status, 200);
    const counts = new Map<string, number>();
    for (const hit of r.json as Hit[]) counts.set(JSON.stringify(hit.attrs.bucket), (counts.get(JSON.stringify(hit.attrs.bucket)) ?? 0) + 1);
    for (const [value, n] of counts) t.true(n <= 2, `offset ${offset}: ${value} x${n}`);
  }
  const first = await call(server, 'POST', '/search', { query: Q, scope: ['capped'], top_k: 20, limit_per: { field: 'bucket', max: 2 } });
  t.is(first.json.length, 8, 'four values x two');
});

test('limit_per applies on /search/similar too', async (t) => {
  const r = await call(server, 'POST', '/search/similar', { collection: 'opts', id: 'a', limit_per: { field: 'g', max: 1 } });
  t.deepEqual(ids(r), ['b', 'c', 'd', 'e']);
});

// ---- diversity ----

async function diverseCollection(name: string) {
  const r = await call(server, 'POST', `/collections/${name}/upsert`, {
    records: [
      { id: 'a', vector: [1, 0, 0, 0] },
      { id: 'a_twin', vector: [1, 0, 0, 0] },
      { id: 'b', vector: [0.8, 0.6, 0, 0] },
      { id: 'c', vector: [0.6, 0, 0.8, 0] },
    ],
  });
  if (r.status !== 200) throw new Error(r.text);
}

test('diversity 1.0 is pure relevance: the same ranking as without diversity', async (t) => {
  await diverseCollection('div_one');
  const plain = await call(server, 'POST', '/search', { query: Q, scope: ['div_one'] });
  const one = await call(server, 'POST', '/search', { query: Q, scope: ['div_one'], diversity: 1 });
  t.is(one.text, plain.text);
  t.deepEqual(ids(plain), ['a', 'a_twin', 'b', 'c']);
});

test('diversity 0.0 pushes an exact duplicate of rank 1 to the end; rank 1 never moves and ties resolve on id', async (t) => {
  await diverseCollection('div_zero');
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['div_zero'], diversity: 0 });
  t.is(r.status, 200);
  t.is(ids(r)[0], 'a');
  t.is(ids(r).at(-1), 'a_twin');
  t.deepEqual([...ids(r)].sort(), ['a', 'a_twin', 'b', 'c']);
});

test('diversity is applied before the page cut (top_k)', async (t) => {
  await diverseCollection('div_page');
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['div_page'], diversity: 0, top_k: 2 });
  t.is(ids(r).length, 2);
  t.is(ids(r)[0], 'a');
  t.not(ids(r)[1], 'a_twin');
});

// ---- rank_by ----

const close = (t: ExecutionContext, actual: number, expected: number, label: string) =>
  t.true(Math.abs(actual - expected) < 1e-5, `${label}: ${actual} vs ${expected}`);

test('rank_by Decay subtracts lambda x (1 - decay^(age / scale)); records without a usable timestamp pay nothing', async (t) => {
  const base = Object.fromEntries(((await call(server, 'POST', '/search', { query: Q, scope: ['opts'] })).json as Hit[]).map((h) => [h.id, h.score]));
  const r = await call(server, 'POST', '/search', {
    query: Q,
    scope: ['opts'],
    rank_by: { Decay: { field: 'ts', origin: 2000, scale: 1000, decay: 0.5, lambda: 1 } },
  });
  t.is(r.status, 200);
  const got = Object.fromEntries((r.json as Hit[]).map((h) => [h.id, h.score]));
  close(t, got.a, base.a - 0.75, 'a, age 2000 (DateTime)');
  close(t, got.b, base.b - 0.5, 'b, age 1000 (DateTime)');
  close(t, got.c, base.c, 'c, age 0 (Int epoch ms)');
  close(t, got.d, base.d, 'd, Str timestamp: missing');
  close(t, got.e, base.e, 'e, no timestamp: missing');
  const order = (r.json as Hit[]).map((h) => h.id);
  t.deepEqual(
    order,
    [...order].sort((x, y) => got[y] - got[x] || (x < y ? -1 : 1)),
    'ordered by the decayed score',
  );
  t.is(order.at(-1), 'a');
});

test('rank_by Decay: missing sets the factor for records without a timestamp', async (t) => {
  const base = Object.fromEntries(((await call(server, 'POST', '/search', { query: Q, scope: ['opts'] })).json as Hit[]).map((h) => [h.id, h.score]));
  const r = await call(server, 'POST', '/search', { query: Q, scope: ['opts'], rank_by: { Decay: { field: 'ts', origin: 2000, missing: 0.25, lambda: 2 } } });
  const got = Object.fromEntries((r.json as Hit[]).map((h) => [h.id, h.score]));
  close(t, got.e, base.e - 2 * 0.75, 'e, missing factor 0.25');
  close(t, got.c, base.c, 'c, age 0');
});

test('rank_by Decay count term: count_lambda x (1 - n / (n + count_scale)); a record with no count pays it all', async (t) => {
  const base = Object.fromEntries(((await call(server, 'POST', '/search', { query: Q, scope: ['opts'] })).json as Hit[]).map((h) => [h.id, h.score]));
  const r = await call(server, 'POST', '/search', {
    query: Q,
    scope: ['opts'],
    rank_by: { Decay: { field: '', origin: 0, count_field: 'n', count_scale: 10, count_lambda: 0.5 } },
  });
  t.is(r.status, 200, r.text);
  const got = Object.fromEntries((r.json as Hit[]).map((h) => [h.id, h.score]));
  close(t, got.a, base.a - 0.5 * (1 - 10 / 20), 'a, n = 10');
  close(t, got.b, base.b - 0.5 * (1 - 30 / 40), 'b, n = 30');
  close(t, got.c, base.c - 0.5, 'c, no count');
});

test('rank_by applies on /search/similar and inside batch legs', async (t) => {
  const rank_by = { Decay: { field: 'ts', origin: 2000, scale: 1000, lambda: 1 } };
  const similar = await call(server, 'POST', '/search/similar', { collection: 'opts', id: 'f', rank_by });
  t.is(similar.status, 200);
  t.is(ids(similar).at(-1), 'a');
  const batch = await call(server, 'POST', '/search/batch', { queries: [{ query: Q, scope: ['opts'], rank_by }] });
  t.deepEqual(batch.json.results[0], (await call(server, 'POST', '/search', { query: Q, scope: ['opts'], rank_by })).json);
});
