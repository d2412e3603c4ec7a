// POST /search through the library: exact scans against a brute-force oracle for every metric,
// the (score desc, collection, id) order, scope, paging, min_score, projection and named vectors.
import test from 'ava';
import { type Distance, type Hit, type RecordInput, type SearchRequest, Store, parseExact } from '../../lib/index';
import { type OracleRecord, assertMatchesOracle, oracleSearch, prng, randomVector, rejectsWith, stored, tempDir } from './helpers';

const METRICS: Distance[] = ['Cosine', 'Euclidean', 'DotProduct'];
const COLLECTIONS = ['alpha', 'beta', 'gamma'];

/** A store holding n random records spread over COLLECTIONS, upserted in batches of 500. */
async function build(metric: Distance, dim: number, n: number, seed: number): Promise<{ store: Store; records: OracleRecord[]; rand: () => number }> {
  const rand = prng(seed);
  const store = await Store.open({ inMemory: true, dimension: dim, distance: metric });
  const records: OracleRecord[] = [];
  for (let i = 0; i < n; i++) records.push({ collection: COLLECTIONS[Math.floor(rand() * 3)], id: `doc-${i}`, vector: randomVector(rand, dim) });
  for (const c of COLLECTIONS) {
    const mine = records.filter((r) => r.collection === c);
    for (let i = 0; i < mine.length; i += 500) {
      const batch = mine.slice(i, i + 500).map((r) => ({
        id: r.id,
        vector: r.vector!,
        attrs: { n: { Int: Number(r.id.slice(4)) }, c: { Str: c }, even: { Bool: Number(r.id.slice(4)) % 2 === 0 } },
      }));
      await store.upsert(c, { records: batch });
    }
  }
  return { store, records, rand };
}

for (const metric of METRICS) {
  test(`exact search equals the brute-force oracle: ${metric}, 2,000 x 17 over three collections`, async (t) => {
    const { store, records, rand } = await build(metric, 17, 2000, 100 + METRICS.indexOf(metric));
    for (let k = 0; k < 8; k++) {
      const query = randomVector(rand, 17);
      for (const top_k of [1, 10, 100]) {
        const hits = await store.search({ query, top_k });
        assertMatchesOracle(t, hits, oracleSearch(records, metric, { query, top_k }), 1e-4, `${metric} q${k} top_k ${top_k}`);
      }
    }
  });

  test(`exact search equals the brute-force oracle: ${metric}, 300 x 64, the whole ranking`, async (t) => {
    const { store, records, rand } = await build(metric, 64, 300, 200 + METRICS.indexOf(metric));
    for (let k = 0; k < 5; k++) {
      const query = randomVector(rand, 64);
      const hits = await store.search({ query, top_k: 300, exact: true });
      assertMatchesOracle(t, hits, oracleSearch(records, metric, { query, top_k: 300 }), 1e-4, `${metric} q${k}`);
    }
  });

  test(`min_score drops exactly the hits scoring below it: ${metric}`, async (t) => {
    const { store, records, rand } = await build(metric, 17, 600, 300 + METRICS.indexOf(metric));
    const query = randomVector(rand, 17);
    const all = oracleSearch(records, metric, { query, top_k: 600 });
    // Thresholds halfway between two well-separated oracle scores, so f32 rounding cannot move a hit across.
    for (const at of [0, 5, 50, 300]) {
      let i = at;
      while (i + 1 < all.length && all[i].score - all[i + 1].score < 1e-3) i++;
      const min_score = (all[i].score + all[i + 1].score) / 2;
      const hits = await store.search({ query, top_k: 600, min_score });
      t.is(hits.length, i + 1, `min_score ${min_score}`);
      t.true(hits.every((h) => h.score >= min_score));
      assertMatchesOracle(t, hits, oracleSearch(records, metric, { query, top_k: 600, min_score }), 1e-4, `min_score ${min_score}`);
    }
    t.deepEqual(await store.search({ query, min_score: all[0].score + 1 }), []);
  });
}

test('Cosine normalizes vectors on insert; Euclidean and DotProduct keep them raw', async (t) => {
  const v = [3, 0, 4, 0];
  for (const metric of METRICS) {
    const store = await Store.open({ inMemory: true, dimension: 4, distance: metric });
    await store.upsert('c', { records: [{ id: 'a', vector: v }] });
    const [rec] = await store.records('c');
    t.deepEqual(rec.vector!.map(Math.fround), metric === 'Cosine' ? [0.6, 0, 0.8, 0].map(Math.fround) : v, metric);
    const [hit] = await store.search({ query: [1, 0, 0, 0] });
    const expected = metric === 'Cosine' ? 0.6 : metric === 'DotProduct' ? 3 : -((3 - 1) ** 2 + 16);
    t.true(Math.abs(hit.score - expected) < 1e-6, `${metric}: ${hit.score}`);
  }
});

test('Cosine refuses a zero vector in upsert and in the query with 400', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 3, distance: 'Cosine' });
  await rejectsWith(t, store.upsert('c', { records: [{ id: 'z', vector: [0, 0, 0] }] }), 400);
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 0, 0] }] });
  await rejectsWith(t, store.search({ query: [0, 0, 0] }), 400);
});

// Identical vectors in several collections under several ids: every score ties exactly, so the
// order is decided by the tie-break alone.
async function tieStore(store: Store, flushBetween: boolean): Promise<void> {
  const hi = [1, 2, 3, 4];
  const lo = [-1, 0, 0, 1];
  for (const c of ['c-b', 'c-a', 'c-c']) {
    await store.upsert(c, { records: ['z', 'm'].map((id) => ({ id, vector: hi })) });
    if (flushBetween) await store.flush();
    await store.upsert(c, {
      records: [
        { id: 'a', vector: hi },
        { id: 'q', vector: lo },
        { id: 'B', vector: hi },
      ],
    });
  }
}

for (const [label, mode] of [
  ['in memory', 'memory'],
  ['across sealed and memory segments', 'disk'],
] as const) {
  test(`exact ties are ordered by collection, then id (${label})`, async (t) => {
    for (const metric of METRICS) {
      const store =
        mode === 'memory'
          ? await Store.open({ inMemory: true, dimension: 4, distance: metric })
          : await Store.open({ path: tempDir(), dimension: 4, distance: metric });
      await tieStore(store, mode === 'disk');
      const hits = await store.search({ query: [1, 2, 3, 3.5], top_k: 100 });
      const order = hits.map((h) => `${h.collection}/${h.id}`);
      t.deepEqual(
        order,
        ['c-a/B', 'c-a/a', 'c-a/m', 'c-a/z', 'c-b/B', 'c-b/a', 'c-b/m', 'c-b/z', 'c-c/B', 'c-c/a', 'c-c/m', 'c-c/z', 'c-a/q', 'c-b/q', 'c-c/q'],
        metric,
      );
      for (let i = 1; i < 12; i++) t.is(hits[i].score, hits[0].score, `${metric}: tie group scores are identical`);
      // The tie-break survives paging: pages of 5 tile the same order.
      const paged: string[] = [];
      for (let offset = 0; offset < 15; offset += 5)
        paged.push(...(await store.search({ query: [1, 2, 3, 3.5], top_k: 5, offset })).map((h) => `${h.collection}/${h.id}`));
      t.deepEqual(paged, order, `${metric} paged`);
      if (mode === 'disk') await store.close();
    }
  });
}

test('scope: empty or omitted means every collection; a subset searches only those; an alias in scope resolves', async (t) => {
  const metric = 'Euclidean';
  const { store, records, rand } = await build(metric, 17, 900, 400);
  await store.putAlias('current', 'beta');
  const query = randomVector(rand, 17);
  const everything = oracleSearch(records, metric, { query, top_k: 50 });
  assertMatchesOracle(t, await store.search({ query, top_k: 50 }), everything, 1e-4, 'omitted');
  assertMatchesOracle(t, await store.search({ query, top_k: 50, scope: [] }), everything, 1e-4, 'empty');
  t.true(new Set(everything.map((h) => h.collection)).size > 1, 'the merged ranking mixes collections');
  for (const scope of [['beta'], ['gamma', 'alpha'], ['current'], ['current', 'alpha']]) {
    const hits = await store.search({ query, top_k: 50, scope });
    assertMatchesOracle(t, hits, oracleSearch(records, metric, { query, top_k: 50, scope }, { current: 'beta' }), 1e-4, scope.join(','));
    const allowed = new Set(scope.map((s) => (s === 'current' ? 'beta' : s)));
    t.true(
      hits.every((h) => allowed.has(h.collection)),
      scope.join(','),
    );
  }
  // An alias and its target in one scope do not count the collection twice.
  const twice = await store.search({ query, top_k: 50, scope: ['beta', 'current'] });
  assertMatchesOracle(t, twice, oracleSearch(records, metric, { query, top_k: 50, scope: ['beta'] }), 1e-4, 'beta + alias');
  t.deepEqual(await store.search({ query, scope: ['no-such-collection'] }), []);
});

test('top_k defaults to 10', async (t) => {
  const { store, records, rand } = await build('Cosine', 17, 200, 500);
  const query = randomVector(rand, 17);
  const hits = await store.search({ query });
  t.is(hits.length, 10);
  assertMatchesOracle(t, hits, oracleSearch(records, 'Cosine', { query, top_k: 10 }));
  t.is((await store.search({ query, top_k: 0 })).length, 0);
});

test('offset paging tiles the ranking with no gap or overlap; an offset past the end returns []', async (t) => {
  for (const metric of METRICS) {
    const { store, records, rand } = await build(metric, 64, 300, 600 + METRICS.indexOf(metric));
    const query = randomVector(rand, 64);
    const whole = await store.search({ query, top_k: 300 });
    t.is(whole.length, 300);
    for (const size of [1, 7, 13, 50]) {
      const pages: Hit[] = [];
      for (let offset = 0; offset < 300; offset += size) {
        const page = await store.search({ query, top_k: size, offset });
        t.is(page.length, Math.min(size, 300 - offset), `${metric} page at ${offset} of size ${size}`);
        pages.push(...page);
      }
      t.deepEqual(pages, whole, `${metric} pages of ${size}`);
    }
    assertMatchesOracle(
      t,
      await store.search({ query, top_k: 20, offset: 40 }),
      oracleSearch(records, metric, { query, top_k: 20, offset: 40 }),
      1e-4,
      `${metric} offset 40`,
    );
    t.deepEqual(await store.search({ query, top_k: 10, offset: 300 }), []);
    t.deepEqual(await store.search({ query, top_k: 10, offset: 5000 }), []);
  }
});

test('offset + top_k above 10000 is 400, never a shortened page; exactly 10000 is allowed', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 1] }] });
  await rejectsWith(t, store.search({ query: [1, 0], offset: 9991, top_k: 10 }), 400, 'offset 9991 + 10');
  await rejectsWith(t, store.search({ query: [1, 0], top_k: 10001 }), 400, 'top_k 10001');
  await rejectsWith(t, store.search({ query: [1, 0], offset: 10001 }), 400, 'offset 10001 + default top_k');
  const e = await rejectsWith(t, store.search({ query: [1, 0], offset: 9000, top_k: 1001 }), 400);
  t.regex(e.message, /10000/);
  t.is((await store.search({ query: [1, 0], offset: 0, top_k: 10000 })).length, 1);
  t.deepEqual(await store.search({ query: [1, 0], offset: 9990, top_k: 10 }), []);
});

test('top_k and offset must be whole non-negative numbers (400)', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 1] }] });
  for (const bad of [{ top_k: -1 }, { top_k: 1.5 }, { offset: -3 }, { top_k: '3' }, { offset: 0.25 }])
    await rejectsWith(t, store.searchJson(Buffer.from(JSON.stringify({ query: [1, 0], ...bad }))), 400, JSON.stringify(bad));
});

test('include_attributes / exclude_attributes project the attrs without changing ranking; both is 400', async (t) => {
  const { store, rand } = await build('DotProduct', 17, 300, 700);
  const query = randomVector(rand, 17);
  const full = await store.search({ query, top_k: 30 });
  t.deepEqual(Object.keys(full[0].attrs).sort(), ['c', 'even', 'n']);
  const include = await store.search({ query, top_k: 30, include_attributes: ['n', 'not-there'] });
  const exclude = await store.search({ query, top_k: 30, exclude_attributes: ['n'] });
  for (let i = 0; i < 30; i++) {
    for (const page of [include, exclude]) {
      t.is(page[i].id, full[i].id);
      t.is(page[i].collection, full[i].collection);
      t.is(page[i].score, full[i].score);
    }
    t.deepEqual(include[i].attrs, { n: full[i].attrs.n });
    t.deepEqual(exclude[i].attrs, { c: full[i].attrs.c, even: full[i].attrs.even });
  }
  const none = await store.search({ query, top_k: 3, include_attributes: [] });
  t.deepEqual(
    none.map((h) => h.attrs),
    [{}, {}, {}],
  );
  const e = await rejectsWith(t, store.search({ query, include_attributes: ['n'], exclude_attributes: ['c'] }), 400);
  t.regex(e.message, /include_attributes/);
  t.regex(e.message, /exclude_attributes/);
});

test('a query whose length differs from the store dimension is 400; so is a missing or non-numeric query', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 5 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 2, 3, 4, 5] }] });
  for (const query of [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6], []]) {
    const e = await rejectsWith(t, store.search({ query }), 400, `length ${query.length}`);
    t.regex(e.message, /5/);
  }
  await rejectsWith(t, store.searchJson(Buffer.from('{"top_k": 3}')), 400, 'no query');
  await rejectsWith(t, store.searchJson(Buffer.from('{"query": [1, 2, "3", 4, 5]}')), 400, 'string component');
  await rejectsWith(t, store.searchJson(Buffer.from('{"query": [1, 2, 3, 4, 1e39]}')), 400, 'component beyond f32');
  await rejectsWith(t, store.searchJson(Buffer.from('{"query": [1, 2, 3, 4, 5], "frobnicate": true}')), 400, 'unknown field');
});

test('a dimension-0 store: search is 400 naming dimension 0, a vector upsert is 400, a text-only record is accepted', async (t) => {
  const dir = tempDir();
  for (const store of [await Store.open({ inMemory: true, dimension: 0 }), await Store.open({ path: dir, dimension: 0 })]) {
    const e = await rejectsWith(t, store.search({ query: [] }), 400, 'search');
    t.regex(e.message, /dimension 0/);
    const e2 = await rejectsWith(t, store.search({ query: [1, 2] }), 400, 'search with numbers');
    t.regex(e2.message, /dimension 0/);
    await rejectsWith(t, store.upsert('docs', { records: [{ id: 'v', vector: [1] }] }), 400, 'vector upsert');
    await rejectsWith(t, store.upsert('docs', { records: [{ id: 'v', vector: [] }] }), 400, 'empty vector upsert');
    t.deepEqual(await store.upsert('docs', { records: [{ id: 't', attrs: { title: { Str: 'keyword only' } } }] }), { upserted: 1 });
    t.deepEqual(await store.records('docs'), [{ id: 't', vector: null, attrs: { title: { Str: 'keyword only' } } }]);
    const stats = await store.stats();
    t.is(stats.dimension, 0);
    t.is(stats.footprint.vector_bytes, 0);
    t.is(stats.footprint.doc_count, 1);
    await store.close();
  }
  const reopened = await Store.open({ path: dir });
  t.is(reopened.dimension, 0);
  t.deepEqual(await reopened.records('docs'), [{ id: 't', vector: null, attrs: { title: { Str: 'keyword only' } } }]);
  await reopened.close();
});

test('a text-only record in a store with vectors is kept but never scored by a vector query', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 3 });
  await store.upsert('c', {
    records: [
      { id: 'text', attrs: { k: { Str: 'v' } } },
      { id: 'vec', vector: [1, 0, 0] },
      { id: 'nul', vector: null as unknown as number[] },
    ],
  });
  t.deepEqual(
    (await store.search({ query: [1, 0, 0] })).map((h) => h.id),
    ['vec'],
  );
  const recs = (await store.records('c')).sort((a, b) => a.id.localeCompare(b.id));
  t.deepEqual(
    recs.map((r) => [r.id, r.vector]),
    [
      ['nul', null],
      ['text', null],
      ['vec', [1, 0, 0]],
    ],
  );
});

// ---- named vectors ----

const NV_DIM = 8;
function namedDataset(seed: number): OracleRecord[] {
  const rand = prng(seed);
  const out: OracleRecord[] = [];
  for (let i = 0; i < 80; i++) {
    const kind = i % 5; // 0: all three, 1: title only, 2: image only, 3: main + title, 4: nothing (text only)
    const r: OracleRecord = {
      collection: i % 2 ? 'docs' : 'pics',
      id: `n${i}`,
      vector: kind === 0 || kind === 3 ? randomVector(rand, NV_DIM) : null,
      vectors: {},
    };
    if (kind === 0 || kind === 1 || kind === 3) r.vectors!.title = randomVector(rand, NV_DIM);
    if (kind === 0 || kind === 2) r.vectors!.image = randomVector(rand, NV_DIM);
    out.push(r);
  }
  return out;
}

async function namedStore(metric: Distance, records: OracleRecord[]): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: NV_DIM, distance: metric });
  for (const c of ['docs', 'pics']) {
    await store.createCollection(c);
    await store.setVectorNames(c, ['title', 'image']);
    const batch = records
      .filter((r) => r.collection === c)
      .map((r) => ({ id: r.id, ...(r.vector ? { vector: r.vector } : {}), vectors: r.vectors, attrs: { i: { Int: Number(r.id.slice(1)) } } }));
    await store.upsert(c, { records: batch });
  }
  return store;
}

for (const metric of METRICS) {
  test(`named vectors: names, name_weights and pool Max/Sum equal the oracle (${metric})`, async (t) => {
    const records = namedDataset(800 + METRICS.indexOf(metric));
    const store = await namedStore(metric, records);
    const rand = prng(900);
    for (let k = 0; k < 4; k++) {
      const query = randomVector(rand, NV_DIM);
      const cases: Omit<SearchRequest, 'query'>[] = [
        {},
        { names: ['title'] },
        { names: ['image'] },
        { names: ['title', 'image'] },
        { names: ['title', 'image'], pool: 'Max' },
        { names: ['title', 'image'], pool: 'Sum' },
        { names: ['title', 'image'], pool: 'Sum', name_weights: { title: 2, image: 0.5 } },
        { names: ['title', 'image'], pool: 'Max', name_weights: { image: 3 } },
        { names: ['default', 'title'], pool: 'Sum' },
        { names: ['default'] },
        { name_weights: { title: 100 } }, // ignored when names is empty
      ];
      for (const c of cases) {
        const q = { query, top_k: 80, ...c };
        assertMatchesOracle(t, await store.search(q), oracleSearch(records, metric, q), 1e-4, `${metric} ${JSON.stringify(c)}`);
      }
    }
  });
}

test('named vectors: a record missing one of the names is scored on the names it carries, not penalized', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2, distance: 'DotProduct' });
  await store.createCollection('c');
  await store.setVectorNames('c', ['title', 'image']);
  await store.upsert('c', {
    records: [
      { id: 'both', vectors: { title: [1, 0], image: [0.5, 0] } },
      { id: 'title-only', vectors: { title: [1, 0] } },
      { id: 'image-only', vectors: { image: [2, 0] } },
      { id: 'neither', vector: [9, 0] },
    ],
  });
  const max = await store.search({ query: [1, 0], names: ['title', 'image'], pool: 'Max' });
  t.deepEqual(
    max.map((h) => [h.id, h.score]),
    [
      ['image-only', 2],
      ['both', 1],
      ['title-only', 1],
    ],
  );
  const sum = await store.search({ query: [1, 0], names: ['title', 'image'], pool: 'Sum' });
  t.deepEqual(
    sum.map((h) => [h.id, h.score]),
    [
      ['image-only', 2],
      ['both', 1.5],
      ['title-only', 1],
    ],
  );
  const main = await store.search({ query: [1, 0] });
  t.deepEqual(
    main.map((h) => h.id),
    ['neither'],
    'with names empty only the default vector is searched',
  );
});

test('named vectors come back from records() and survive a reopen', async (t) => {
  const dir = tempDir();
  let store = await Store.open({ path: dir, dimension: 2, distance: 'Euclidean' });
  await store.createCollection('c');
  await store.setVectorNames('c', ['title']);
  await store.upsert('c', {
    records: [
      { id: 'a', vector: [1, 2], vectors: { title: [3, 4] } },
      { id: 'b', vectors: { title: [5, 6] } },
    ],
  });
  const expected = [
    { id: 'a', vector: [1, 2], vectors: { title: [3, 4] }, attrs: {} },
    { id: 'b', vector: null, vectors: { title: [5, 6] }, attrs: {} },
  ];
  t.deepEqual(await store.records('c'), expected);
  await store.close();
  store = await Store.open({ path: dir });
  t.deepEqual(await store.records('c'), expected);
  t.deepEqual(
    (await store.search({ query: [5, 6], names: ['title'] })).map((h) => h.id),
    ['b', 'a'],
  );
  await store.upsert('c', { records: [{ id: 'c', vectors: { title: [0, 0] } }] });
  await store.close();
});

test('named vectors: an undeclared name in upsert is 400 naming the record and the missing declaration; nothing is written', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.createCollection('c');
  await store.setVectorNames('c', ['title']);
  const before = await store.stats();
  const records: RecordInput[] = [
    { id: 'ok', vector: [1, 0], vectors: { title: [0, 1] } },
    { id: 'bad-one', vector: [1, 0], vectors: { summary: [0, 1] } },
  ];
  const e = await rejectsWith(t, store.upsert('c', { records }), 400);
  t.regex(e.message, /bad-one/);
  t.regex(e.message, /summary/);
  t.regex(e.message, /vector-names|declare/);
  t.deepEqual(await store.stats(), before);
  t.deepEqual(await store.records('c'), []);
  // An auto-created collection has no declarations at all.
  await rejectsWith(t, store.upsert('fresh', { records: [{ id: 'x', vectors: { title: [1, 1] } }] }), 400);
  t.deepEqual(await store.collections(), ['c']);
});

test("named vectors: 'default' is refused in vector-names and in a record's vectors (400 naming the reason)", async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.createCollection('c');
  const e = await rejectsWith(t, store.setVectorNames('c', ['title', 'default']), 400);
  t.regex(e.message, /default/);
  const e2 = await rejectsWith(t, store.upsert('c', { records: [{ id: 'x', vectors: { default: [1, 1] } }] }), 400);
  t.regex(e2.message, /default/);
  await rejectsWith(t, store.setVectorNames('missing', ['title']), 404);
});

test('named vectors: re-running vector-names replaces the whole set', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.createCollection('c');
  await store.setVectorNames('c', ['title', 'image']);
  await store.setVectorNames('c', ['body']);
  await rejectsWith(t, store.upsert('c', { records: [{ id: 'x', vectors: { title: [1, 1] } }] }), 400);
  t.deepEqual(await store.upsert('c', { records: [{ id: 'x', vectors: { body: [1, 1] } }] }), { upserted: 1 });
});

test('named vectors: redeclaring 16 new names after 16 were written starts a fresh segment; the store is not poisoned', async (t) => {
  const store = await Store.open({ path: tempDir('names'), dimension: 2 });
  const first = Array.from({ length: 16 }, (_, i) => `n${i}`);
  const second = Array.from({ length: 16 }, (_, i) => `m${i}`);
  await store.createCollection('c');
  await store.setVectorNames('c', first);
  await store.upsert('c', { records: [{ id: 'old', vectors: Object.fromEntries(first.map((n) => [n, [1, 0]])) }] });
  await store.setVectorNames('c', second);
  t.deepEqual(await store.upsert('c', { records: [{ id: 'new', vectors: { m3: [0, 1] } }] }), { upserted: 1 });
  t.is(store.poisoned(), null);
  t.deepEqual(
    (await store.search({ query: [0, 1], names: ['m3'] })).map((h) => h.id),
    ['new'],
  );
  await store.flush();
  t.deepEqual(
    (await store.search({ query: [0, 1], names: ['m3'] })).map((h) => h.id),
    ['new'],
  );
  t.is((await store.records('c')).length, 2);
});

test('named vectors: a search naming a vector no collection in scope declares is 400; a wrong-length named vector is 400', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.createCollection('c');
  await store.setVectorNames('c', ['title']);
  await store.upsert('c', { records: [{ id: 'x', vector: [1, 0], vectors: { title: [1, 1] } }] });
  const e = await rejectsWith(t, store.search({ query: [1, 0], names: ['nope'] }), 400);
  t.regex(e.message, /nope/);
  await rejectsWith(t, store.upsert('c', { records: [{ id: 'y', vectors: { title: [1, 1, 1] } }] }), 400);
  await rejectsWith(t, store.search({ query: [1, 0], names: ['title'], pool: 'Mean' as 'Max' }), 400, 'unknown pool');
});

test('search hits are exactly the raw JSON the core wrote (searchJson) and never carry a vector', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2 });
  await store.upsert('c', { records: [{ id: 'a', vector: [1, 0], attrs: { s: { Str: 'x' } } }] });
  const raw = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  t.deepEqual(parseExact(raw), await store.search({ query: [1, 0] }));
  const [hit] = JSON.parse(raw);
  t.deepEqual(Object.keys(hit).sort(), ['attrs', 'collection', 'id', 'score']);
});

test('records never scored twice: an overwritten or deleted record leaves the ranking', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 2, distance: 'DotProduct' });
  await store.upsert('c', {
    records: [
      { id: 'a', vector: [10, 0] },
      { id: 'b', vector: [5, 0] },
      { id: 'c', vector: [1, 0] },
    ],
  });
  await store.upsert('c', { records: [{ id: 'a', vector: [0, 1] }] });
  t.deepEqual(
    (await store.search({ query: [1, 0] })).map((h) => [h.id, h.score]),
    [
      ['b', 5],
      ['c', 1],
      ['a', 0],
    ],
  );
  await store.delete('c', { ids: ['b'] });
  t.deepEqual(
    (await store.search({ query: [1, 0] })).map((h) => h.id),
    ['c', 'a'],
  );
});

test('stored vectors are what the oracle assumes (f32, normalized under Cosine)', async (t) => {
  const rand = prng(1000);
  const v = randomVector(rand, 17);
  const store = await Store.open({ inMemory: true, dimension: 17, distance: 'Cosine' });
  await store.upsert('c', { records: [{ id: 'a', vector: v }] });
  const [rec] = await store.records('c');
  const want = stored(v, 'Cosine');
  rec.vector!.forEach((x, i) => {
    t.true(Math.abs(x - want[i]) < 1e-6, `component ${i}`);
  });
});
