// POST /search/similar and POST /search/batch through the library: the source record excluded by
// (collection, id) identity, its default scope, the 400s naming the id; batch legs validated
// together (1 to 16, no plan or rerank), each its own scope/filter/top_k, results in request order,
// and reciprocal rank fusion with 1-based ranks over each leg's returned page.
import test from 'ava';
import { type Hit, type SearchRequest, Store } from '../../lib/index';
import { type OracleRecord, assertMatchesOracle, oracleSearch, prng, randomVector, ranksBefore, rejectsWith } from '../core/helpers';
import { label } from './util';

const DIM = 8;

interface Rec extends OracleRecord {
  g: number;
}

async function build(seed: number, n: number, extra: Rec[] = []): Promise<{ store: Store; recs: Rec[] }> {
  const rand = prng(seed);
  const recs: Rec[] = [
    ...Array.from({ length: n }, (_, i) => ({ collection: ['a', 'b', 'c'][i % 3], id: `r${i}`, vector: randomVector(rand, DIM), g: i % 4 })),
    ...extra,
  ];
  const store = await Store.open({ inMemory: true, dimension: DIM });
  for (const c of ['a', 'b', 'c']) {
    const mine = recs.filter((r) => r.collection === c);
    await store.upsert(c, {
      records: mine.map((r) => ({ id: r.id, ...(r.vector ? { vector: r.vector } : {}), attrs: { g: { Int: r.g }, name: { Str: `${c}-${r.id}` } } })),
    });
  }
  return { store, recs };
}

const key = (h: { collection: string; id: string }) => `${h.collection}/${h.id}`;

// ---- /search/similar --------------------------------------------------------------------------

test('similar: the source is excluded by identity, but a genuine duplicate (same vector, other id) comes back first', async (t) => {
  const v = randomVector(prng(1), DIM);
  const { store, recs } = await build(2, 150, [
    { collection: 'a', id: 'src', vector: v, g: 0 },
    { collection: 'a', id: 'twin', vector: v, g: 0 },
  ]);
  const hits = await store.searchSimilar({ collection: 'a', id: 'src', top_k: 10 });
  t.false(hits.some((h) => key(h) === 'a/src'));
  t.is(key(hits[0]), 'a/twin');
  t.true(Math.abs(hits[0].score - 1) < 1e-5);
  const expected = oracleSearch(
    recs.filter((r) => key(r) !== 'a/src'),
    'Cosine',
    { query: v, scope: ['a'], top_k: 10 },
  );
  assertMatchesOracle(t, hits, expected);
});

test('similar: the default (omitted or empty) scope is the source collection; an explicit scope is searched as given', async (t) => {
  const v = randomVector(prng(3), DIM);
  const { store, recs } = await build(4, 150, [
    { collection: 'a', id: 'src', vector: v, g: 0 },
    { collection: 'b', id: 'src', vector: v, g: 0 }, // the same id in another collection is another record
  ]);
  const others = recs.filter((r) => key(r) !== 'a/src');
  for (const scope of [undefined, []]) {
    const hits = await store.searchSimilar({ collection: 'a', id: 'src', top_k: 20, ...(scope ? { scope } : {}) });
    t.true(
      hits.every((h) => h.collection === 'a'),
      `scope ${label(scope)}`,
    );
    assertMatchesOracle(t, hits, oracleSearch(others, 'Cosine', { query: v, scope: ['a'], top_k: 20 }), 1e-4, `scope ${label(scope)}`);
  }
  const inB = await store.searchSimilar({ collection: 'a', id: 'src', scope: ['b'], top_k: 5 });
  t.is(key(inB[0]), 'b/src', 'b/src is not the source');
  assertMatchesOracle(t, inB, oracleSearch(others, 'Cosine', { query: v, scope: ['b'], top_k: 5 }));
  const both = await store.searchSimilar({ collection: 'a', id: 'src', scope: ['a', 'b', 'c'], top_k: 30 });
  assertMatchesOracle(t, both, oracleSearch(others, 'Cosine', { query: v, top_k: 30 }));
});

test('similar: a source named through an alias is excluded, and the default scope is the target collection', async (t) => {
  const v = randomVector(prng(5), DIM);
  const { store, recs } = await build(6, 90, [{ collection: 'c', id: 'src', vector: v, g: 1 }]);
  await store.putAlias('al', 'c');
  const hits = await store.searchSimilar({ collection: 'al', id: 'src', top_k: 10 });
  assertMatchesOracle(
    t,
    hits,
    oracleSearch(
      recs.filter((r) => key(r) !== 'c/src'),
      'Cosine',
      { query: v, scope: ['c'], top_k: 10 },
    ),
  );
  const viaScope = await store.searchSimilar({ collection: 'c', id: 'src', scope: ['al'], top_k: 10 });
  t.false(
    viaScope.some((h) => key(h) === 'c/src'),
    'excluded when the scope names it by alias',
  );
});

test('similar: filter, top_k, offset and min_score apply as on /search', async (t) => {
  const v = randomVector(prng(7), DIM);
  const { store, recs } = await build(8, 300, [{ collection: 'a', id: 'src', vector: v, g: 2 }]);
  const others = recs.filter((r) => key(r) !== 'a/src' && r.g === 2);
  const hits = await store.searchSimilar({ collection: 'a', id: 'src', scope: ['a', 'b'], filter: [{ Eq: ['g', { Int: 2 }] }], top_k: 7, offset: 2 });
  assertMatchesOracle(t, hits, oracleSearch(others, 'Cosine', { query: v, scope: ['a', 'b'], top_k: 7, offset: 2 }));
  const floor = await store.searchSimilar({ collection: 'a', id: 'src', min_score: 0.2, top_k: 100 });
  t.true(floor.every((h) => h.score >= 0.2));
});

test('similar: a missing source, a missing collection, or a vectorless source is 400 naming the id', async (t) => {
  const { store } = await build(9, 30, [{ collection: 'a', id: 'text-only', vector: null, g: 0 }]);
  for (const [collection, id] of [
    ['a', 'ghost-id'],
    ['nope', 'ghost-id'],
    ['a', 'text-only'],
  ]) {
    const e = await rejectsWith(t, store.searchSimilar({ collection, id }), 400, `${collection}/${id}`);
    t.true(e.message.includes(id), `message names ${id}: ${e.message}`);
  }
  // A record deleted after being written is missing too.
  await store.delete('a', { ids: ['r0'] });
  const e = await rejectsWith(t, store.searchSimilar({ collection: 'a', id: 'r0' }), 400);
  t.true(e.message.includes('r0'));
});

test('similar: query, names, name_weights, pool and rerank are refused with 400; collection and id are required', async (t) => {
  const { store } = await build(10, 30);
  const base = { collection: 'a', id: 'r0' };
  const refused: Record<string, unknown>[] = [
    { query: randomVector(prng(11), DIM) },
    { names: ['x'] },
    { name_weights: { x: 1 } },
    { pool: 'Max' },
    { rerank: { query: 'x' } },
  ];
  for (const extra of refused) await rejectsWith(t, store.searchSimilar({ ...base, ...extra } as never), 400, label(extra));
  await rejectsWith(t, store.searchSimilar({ id: 'r0' } as never), 400, 'no collection');
  await rejectsWith(t, store.searchSimilar({ collection: 'a' } as never), 400, 'no id');
  t.is((await store.searchSimilar(base)).length, 9, 'the plain request works (10 records in a, the source excluded)');
});

// ---- /search/batch ----------------------------------------------------------------------------

function legs(n: number, seed: number): SearchRequest[] {
  const rand = prng(seed);
  const scopes = [[], ['a'], ['b', 'c'], ['c'], ['nope', 'a']];
  return Array.from({ length: n }, (_, i) => ({
    query: randomVector(rand, DIM),
    scope: scopes[i % scopes.length],
    top_k: 3 + (i % 7),
    ...(i % 2 ? { filter: [{ Eq: ['g', { Int: i % 4 }] as [string, { Int: number }] }] } : {}),
    ...(i % 5 === 4 ? { offset: 2 } : {}),
  }));
}

test('batch: each leg has its own scope, filter and top_k; results come in request order, equal to the single searches', async (t) => {
  const { store, recs } = await build(12, 300);
  const queries = legs(7, 13);
  const r = await store.searchBatch({ queries });
  t.true('results' in r && !('fused' in r));
  const results = (r as { results: Hit[][] }).results;
  t.is(results.length, 7);
  for (let i = 0; i < queries.length; i++) {
    t.deepEqual(results[i], await store.search(queries[i]), `leg ${i}`);
    const q = queries[i];
    const keep = recs.filter((x) => !q.filter || x.g === i % 4);
    assertMatchesOracle(
      t,
      results[i],
      oracleSearch(keep, 'Cosine', { query: q.query as number[], scope: q.scope, top_k: q.top_k, offset: q.offset }),
      1e-4,
      `leg ${i}`,
    );
  }
});

test('batch: 1 and 16 legs are accepted; 0 and 17 legs are 400', async (t) => {
  const { store } = await build(14, 60);
  t.is(((await store.searchBatch({ queries: legs(1, 15) })) as { results: Hit[][] }).results.length, 1);
  t.is(((await store.searchBatch({ queries: legs(16, 16) })) as { results: Hit[][] }).results.length, 16);
  await rejectsWith(t, store.searchBatch({ queries: [] }), 400, '0 legs');
  await rejectsWith(t, store.searchBatch({ queries: legs(17, 17) }), 400, '17 legs');
  await rejectsWith(t, store.searchBatch({} as never), 400, 'no queries');
});

test('batch: one malformed leg makes the whole call 400, naming the leg', async (t) => {
  const { store } = await build(18, 60);
  const good = legs(4, 19);
  const broken: [string, Record<string, unknown>][] = [
    ['a bad filter', { filter: [{ Fuzzy: ['name', 'x', 9] }] }],
    ['a wrong-length query', { query: [1, 2, 3] }],
    ['no query', { query: undefined }],
    ['include and exclude together', { include_attributes: ['g'], exclude_attributes: ['name'] }],
    ['offset + top_k above 10000', { offset: 9999, top_k: 2 }],
    ['invalid diversity', { diversity: 2 }],
    ['invalid rank_by', { rank_by: { Decay: { field: 'g', origin: 0, scale: 0 } } }],
    ['limit_per max 0', { limit_per: { field: 'g', max: 0 } }],
    ['an unknown field', { nope: true }],
  ];
  for (const [what, change] of broken) {
    const queries = good.map((q, i) => (i === 2 ? ({ ...q, ...change } as SearchRequest) : q));
    const e = await rejectsWith(t, store.searchBatch({ queries }), 400, what);
    t.regex(e.message, /queries\[2\]/, `${what}: ${e.message}`);
    await rejectsWith(t, store.searchBatch({ queries, fuse: {} }), 400, `${what}, fused`);
  }
});

test('batch: plan or rerank inside a leg is 400', async (t) => {
  const { store } = await build(20, 30);
  const [q] = legs(1, 21);
  for (const extra of [{ plan: true }, { plan: false }, { rerank: { query: 'x' } }]) {
    await rejectsWith(t, store.searchBatch({ queries: [q, { ...q, ...extra } as SearchRequest] }), 400, label(extra));
  }
});

/** Reciprocal rank fusion over the legs' returned pages: sum of weight / (rrf_k + rank), rank 1-based. */
function fuse(pages: Hit[][], rrfK: number, weights: number[]): Map<string, { score: number; hit: Hit }> {
  const out = new Map<string, { score: number; hit: Hit }>();
  pages.forEach((page, leg) => {
    page.forEach((h, pos) => {
      const e = out.get(key(h)) ?? { score: 0, hit: h };
      e.score += (weights.length ? weights[leg] : 1) / (rrfK + pos + 1);
      out.set(key(h), e);
    });
  });
  return out;
}

function assertFused(t: import('ava').ExecutionContext, fused: Hit[], expected: Map<string, { score: number; hit: Hit }>, topK: number, what: string): void {
  const ranked = [...expected.values()].map((e) => ({ collection: e.hit.collection, id: e.hit.id, score: Math.fround(e.score) })).sort(ranksBefore);
  t.is(fused.length, Math.min(topK, ranked.length), `${what}: length`);
  for (const h of fused) {
    const e = expected.get(key(h));
    if (!e) return void t.fail(`${what}: ${key(h)} is in no leg`);
    t.true(Math.abs(h.score - e.score) <= 1e-6 * e.score, `${what}: ${key(h)} fused ${h.score}, formula ${e.score}`);
  }
  t.deepEqual(fused.map(key), ranked.slice(0, topK).map(key), `${what}: order (score desc, collection, id)`);
}

test("batch fuse: RRF score = sum over legs of weight / (rrf_k + rank), 1-based ranks over each leg's returned page", async (t) => {
  const { store } = await build(22, 300);
  const queries = legs(5, 23).map((q, i) => ({ ...q, scope: [], top_k: 20, ...(i === 3 ? { offset: 5 } : {}) }));
  // Make the legs overlap: leg 1 repeats leg 0's query with a filter, leg 2 repeats it unfiltered.
  queries[1] = { ...queries[0], filter: [{ Ne: ['g', { Int: 0 }] }] };
  queries[2] = { ...queries[0], top_k: 8 };
  const pages = ((await store.searchBatch({ queries })) as { results: Hit[][] }).results;
  for (const [rrf_k, weights, top_k] of [
    [60, [], 10],
    [0, [1, 2, 0.5, 0, 3], 25],
    [1, [], 200],
    [7.5, [0.1, 0.2, 0.3, 0.4, 0.5], 1],
  ] as [number, number[], number][]) {
    const r = await store.searchBatch({ queries, fuse: { rrf_k, weights, top_k } });
    t.true('fused' in r && !('results' in r));
    assertFused(t, (r as { fused: Hit[] }).fused, fuse(pages, rrf_k, weights), top_k, `rrf_k ${rrf_k} weights ${label(weights)} top_k ${top_k}`);
  }
});

test('batch fuse defaults: rrf_k 60, every weight 1.0, fuse.top_k 10', async (t) => {
  const { store } = await build(24, 200);
  const queries = legs(3, 25).map((q) => ({ ...q, scope: [], top_k: 30, filter: undefined, offset: undefined }));
  const pages = ((await store.searchBatch({ queries })) as { results: Hit[][] }).results;
  const r = (await store.searchBatch({ queries, fuse: {} })) as { fused: Hit[] };
  assertFused(t, r.fused, fuse(pages, 60, []), 10, 'defaults');
  t.is(r.fused.length, 10);
  const single = (await store.searchBatch({ queries: [queries[0]], fuse: {} })) as { fused: Hit[] };
  t.deepEqual(
    single.fused.map((h) => Math.fround(h.score)),
    Array.from({ length: 10 }, (_, i) => Math.fround(1 / (61 + i))),
    'one leg: 1/(60 + rank), rank from 1',
  );
  t.deepEqual(single.fused.map(key), pages[0].slice(0, 10).map(key));
});

test('batch fuse: weights must be empty or exactly as long as queries, else 400', async (t) => {
  const { store } = await build(26, 60);
  const queries = legs(3, 27);
  for (const weights of [[1], [1, 1], [1, 1, 1, 1]]) await rejectsWith(t, store.searchBatch({ queries, fuse: { weights } }), 400, label(weights));
  t.true('fused' in (await store.searchBatch({ queries, fuse: { weights: [] } })));
  t.true('fused' in (await store.searchBatch({ queries, fuse: { weights: [1, 2, 3] } })));
});

test("batch fuse: fused hits carry the first leg's projection, also hits that only later legs returned", async (t) => {
  const { store } = await build(28, 120);
  const [a, b] = legs(2, 29).map((q) => ({ ...q, scope: [], filter: undefined, offset: undefined, top_k: 10 }));
  const queries: SearchRequest[] = [
    { ...a, include_attributes: ['g'] },
    { ...b, exclude_attributes: ['g'] },
  ];
  const r = (await store.searchBatch({ queries, fuse: { top_k: 40 } })) as { fused: Hit[] };
  const union = new Set([...(await store.search(queries[0])), ...(await store.search(queries[1]))].map(key));
  t.is(r.fused.length, union.size);
  for (const h of r.fused) t.deepEqual(Object.keys(h.attrs), ['g'], key(h));
  const inA = new Set((await store.search(queries[0])).map(key));
  t.true(
    r.fused.some((h) => !inA.has(key(h))),
    'some fused hits come from the second leg only',
  );
});
