// The /search options that read attributes or stored vectors, through the library: limit_per
// (rule 5), diversity (rule 6, MMR over stored vectors, window 512), rank_by Decay with the count
// term, and min_score on the rank_by-adjusted score. Expectations come from the brute-force
// oracle in ../core/helpers plus the formulas of the spec.
import test, { type ExecutionContext } from 'ava';
import { type DecayRank, type Hit, type RecordInput, type SearchRequest, type Value, Store } from '../../lib/index';
import { type OracleRecord, type Ranked, assertMatchesOracle, oracleSearch, prng, randomVector, ranksBefore, rejectsWith, stored } from '../core/helpers';
import { ids, label } from './util';

const DIM = 8;

interface Rec extends OracleRecord {
  attrs: Record<string, Value>;
}

async function build(recs: Rec[]): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: DIM });
  for (const c of [...new Set(recs.map((r) => r.collection))]) {
    const mine = recs.filter((r) => r.collection === c);
    for (let i = 0; i < mine.length; i += 500) {
      await store.upsert(c, { records: mine.slice(i, i + 500).map((r): RecordInput => ({ id: r.id, vector: r.vector!, attrs: r.attrs })) });
    }
  }
  return store;
}

/** The full oracle ranking (every record of the scope), best first. */
function ranking(recs: Rec[], query: number[]): Ranked[] {
  return oracleSearch(recs, 'Cosine', { query, top_k: recs.length });
}

const valueKey = (v: Value | undefined) => (v === undefined ? '<missing>' : label(v));

// ---- limit_per --------------------------------------------------------------------------------

function limitPerRecords(seed: number, n: number): Rec[] {
  const rand = prng(seed);
  const cats: (Value | undefined)[] = [{ Str: 'A' }, { Str: 'B' }, { Str: 'C' }, { Str: 'D' }, { Int: 1 }, { Float: 1 }, { List: ['A'] }, 'Null', undefined];
  return Array.from({ length: n }, (_, i) => {
    const cat = cats[Math.floor(rand() * cats.length)];
    return {
      collection: i % 4 === 0 ? 'b' : 'a',
      id: `r${i}`,
      vector: randomVector(rand, DIM),
      attrs: { ...(cat === undefined ? {} : { cat }), other: { Int: i } },
    };
  });
}

/** limit_per as documented: greedy in rank order over a window of 10 x (offset + top_k) candidates. */
function oracleLimitPer(recs: Rec[], query: number[], field: string, max: number, top_k: number, offset = 0): Ranked[] {
  const byKey = new Map(recs.map((r) => [`${r.collection}/${r.id}`, r]));
  const seen = new Map<string, number>();
  const kept: Ranked[] = [];
  for (const h of ranking(recs, query).slice(0, 10 * (offset + top_k))) {
    const key = valueKey(byKey.get(`${h.collection}/${h.id}`)!.attrs[field]);
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n <= max) kept.push(h);
  }
  return kept.slice(offset, offset + top_k);
}

test('limit_per caps hits per stored value; records missing the attribute share one group; Int 1, Float 1 and List [A] are distinct values', async (t) => {
  const recs = limitPerRecords(11, 400);
  const store = await build(recs);
  const rand = prng(12);
  for (let q = 0; q < 5; q++) {
    const query = randomVector(rand, DIM);
    for (const [max, top_k] of [
      [1, 9],
      [2, 10],
      [3, 25],
    ]) {
      const hits = await store.search({ query, top_k, limit_per: { field: 'cat', max } });
      assertMatchesOracle(t, hits, oracleLimitPer(recs, query, 'cat', max, top_k), 1e-4, `q${q} max ${max} top_k ${top_k}`);
      const counts = new Map<string, number>();
      for (const h of hits) counts.set(valueKey(h.attrs.cat), (counts.get(valueKey(h.attrs.cat)) ?? 0) + 1);
      t.true(
        [...counts.values()].every((c) => c <= max),
        `q${q}: at most ${max} per value`,
      );
    }
    const paged = await store.search({ query, top_k: 5, offset: 4, limit_per: { field: 'cat', max: 2 } });
    assertMatchesOracle(t, paged, oracleLimitPer(recs, query, 'cat', 2, 5, 4), 1e-4, `q${q} offset 4`);
  }
});

test('limit_per: a page may be shorter than top_k, but never carries more than max hits for one value', async (t) => {
  const rand = prng(13);
  const recs: Rec[] = Array.from({ length: 50 }, (_, i) => ({
    collection: 'a',
    id: `r${i}`,
    vector: randomVector(rand, DIM),
    attrs: (i % 3 === 0 ? {} : { cat: { Str: i % 3 === 1 ? 'x' : 'y' } }) as Record<string, Value>,
  }));
  const store = await build(recs);
  const query = randomVector(rand, DIM);
  const hits = await store.search({ query, top_k: 10, limit_per: { field: 'cat', max: 1 } });
  t.is(hits.length, 3, 'one for x, one for y, one for the missing group');
  assertMatchesOracle(t, hits, oracleLimitPer(recs, query, 'cat', 1, 10), 1e-4);
});

test('limit_per reads the value from the stored record, so projection cannot lift the cap', async (t) => {
  const recs = limitPerRecords(14, 300);
  const store = await build(recs);
  const query = randomVector(prng(15), DIM);
  const base: SearchRequest = { query, top_k: 12, limit_per: { field: 'cat', max: 1 } };
  const plain = ids(await store.search(base));
  t.deepEqual(ids(await store.search({ ...base, exclude_attributes: ['cat'] })), plain);
  t.deepEqual(ids(await store.search({ ...base, include_attributes: ['other'] })), plain);
  const projected = await store.search({ ...base, include_attributes: ['other'] });
  t.true(projected.every((h) => !('cat' in h.attrs)));
});

test('limit_per: max 0 is 400; a missing field or max, or a non-integer max, is 400', async (t) => {
  const store = await build(limitPerRecords(16, 20));
  const query = randomVector(prng(17), DIM);
  for (const lp of [{ field: 'cat', max: 0 }, { field: 'cat', max: -1 }, { field: 'cat', max: 1.5 }, { field: 'cat' }, { max: 2 }, { field: '', max: 1 }]) {
    await rejectsWith(t, store.search({ query, limit_per: lp as { field: string; max: number } }), 400, label(lp));
  }
});

// ---- diversity --------------------------------------------------------------------------------

function randomRecords(seed: number, n: number, collections = ['a', 'b']): Rec[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => ({
    collection: collections[i % collections.length],
    id: `r${i}`,
    vector: randomVector(rand, DIM),
    attrs: { g: { Int: i % 5 } },
  }));
}

test('diversity: rank 1 never moves', async (t) => {
  const recs = randomRecords(21, 300);
  const store = await build(recs);
  const rand = prng(22);
  for (let q = 0; q < 5; q++) {
    const query = randomVector(rand, DIM);
    const first = (await store.search({ query, top_k: 1 }))[0];
    for (const diversity of [0, 0.3, 0.5, 0.9, 1]) {
      const hits = await store.search({ query, top_k: 10, diversity });
      t.is(`${hits[0].collection}/${hits[0].id}`, `${first.collection}/${first.id}`, `q${q} lambda ${diversity}`);
      t.is(hits[0].score, first.score);
    }
  }
});

test('diversity 1.0 is pure relevance: the plain ranking, unchanged', async (t) => {
  const recs = randomRecords(23, 300);
  const store = await build(recs);
  const query = randomVector(prng(24), DIM);
  const plain = await store.search({ query, top_k: 60 });
  t.deepEqual(await store.search({ query, top_k: 60, diversity: 1 }), plain);
});

test('diversity: a cluster of duplicate vectors gets spread out at lambda 0.3', async (t) => {
  const rand = prng(25);
  const query = randomVector(rand, DIM);
  const near = query.map((x, k) => Math.fround(x + (k === 0 ? 0.05 : 0)));
  const recs: Rec[] = [
    ...Array.from({ length: 6 }, (_, i) => ({ collection: 'a', id: `dup${i}`, vector: near, attrs: {} })),
    ...Array.from({ length: 40 }, (_, i) => ({ collection: 'a', id: `other${i}`, vector: randomVector(rand, DIM), attrs: {} })),
  ];
  const store = await build(recs);
  const plain = ids(await store.search({ query, top_k: 6 }));
  t.deepEqual(plain, ['dup0', 'dup1', 'dup2', 'dup3', 'dup4', 'dup5'], 'without diversity the duplicates fill the page');
  const diverse = ids(await store.search({ query, top_k: 6, diversity: 0.3 }));
  t.is(diverse[0], 'dup0', 'rank 1 stays');
  t.false(diverse[1].startsWith('dup'), 'the second hit is not a copy of the first');
  t.true(diverse.filter((id) => id.startsWith('dup')).length <= 2, `duplicates spread out: ${diverse}`);
});

/**
 * Checks a diversified page step by step against MMR over the plain ranking's first min(512, n)
 * candidates: relevance = score min-max scaled in the window, redundancy = the largest cosine of
 * stored vectors to an already chosen hit. At each step the core's pick must have the best MMR
 * value (within f32 noise), given the core's own earlier picks.
 */
function assertMmr(t: ExecutionContext, hits: Hit[], recs: Rec[], query: number[], lambda: number, labelText: string): void {
  const window = ranking(recs, query).slice(0, 512);
  const hi = window[0].score;
  const lo = window[window.length - 1].score;
  const vecOf = new Map(recs.map((r) => [`${r.collection}/${r.id}`, stored(r.vector!, 'Cosine')]));
  const cos = (a: string, b: string) => vecOf.get(a)!.reduce((s, x, k) => s + x * vecOf.get(b)![k], 0);
  const keys = window.map((w) => `${w.collection}/${w.id}`);
  const rel = new Map(window.map((w) => [`${w.collection}/${w.id}`, hi > lo ? (w.score - lo) / (hi - lo) : 1]));
  const chosen: string[] = [];
  for (let i = 0; i < hits.length; i++) {
    const key = `${hits[i].collection}/${hits[i].id}`;
    if (!rel.has(key)) return void t.fail(`${labelText}: position ${i} (${key}) is outside the 512-candidate window`);
    if (i === 0) {
      t.is(key, keys[0], `${labelText}: rank 1`);
    } else {
      const value = (k: string) => lambda * rel.get(k)! - (1 - lambda) * Math.max(...chosen.map((c) => cos(k, c)));
      const best = Math.max(...keys.filter((k) => !chosen.includes(k)).map(value));
      if (value(key) < best - 1e-5) return void t.fail(`${labelText}: position ${i} picked ${key} with MMR ${value(key)}, best is ${best}`);
    }
    chosen.push(key);
  }
  t.pass();
}

test('diversity follows MMR: lambda x relevance (min-max scaled in the window) - (1 - lambda) x max cosine to the chosen hits', async (t) => {
  const recs = randomRecords(26, 250);
  const store = await build(recs);
  const rand = prng(27);
  for (let q = 0; q < 3; q++) {
    const query = randomVector(rand, DIM);
    for (const lambda of [0, 0.25, 0.5, 0.75]) {
      const hits = await store.search({ query, top_k: 25, diversity: lambda });
      assertMmr(t, hits, recs, query, lambda, `q${q} lambda ${lambda}`);
    }
  }
});

test('diversity: the reordered window is 512 candidates; hits past it keep relevance order', async (t) => {
  const recs = randomRecords(28, 700);
  const store = await build(recs);
  const query = randomVector(prng(29), DIM);
  const plain = (await store.search({ query, top_k: 700 })).map((h) => `${h.collection}/${h.id}`);
  const diverse = (await store.search({ query, top_k: 700, diversity: 0 })).map((h) => `${h.collection}/${h.id}`);
  t.notDeepEqual(diverse.slice(0, 512), plain.slice(0, 512), 'lambda 0 reorders the window');
  t.deepEqual([...diverse.slice(0, 512)].sort(), [...plain.slice(0, 512)].sort(), 'the window holds the 512 most relevant');
  t.deepEqual(diverse.slice(512), plain.slice(512), 'positions 513.. are untouched');
  // The page cut comes after the reorder: a deep page is a slice of the same order.
  const page = (await store.search({ query, top_k: 20, offset: 100, diversity: 0 })).map((h) => `${h.collection}/${h.id}`);
  t.deepEqual(page, diverse.slice(100, 120));
});

test('diversity: exact MMR ties resolve on (collection, id)', async (t) => {
  // Four vectors at the same angle to the query: after b/first (rank 1) and its mirror image, the
  // two left have the same relevance and the same redundancy, exactly.
  const c = (x: number[]) => [...x, 0, 0, 0, 0];
  const recs: Rec[] = [
    { collection: 'b', id: 'm', vector: c([1, 0, 0.5, 0]), attrs: {} },
    { collection: 'a', id: 'z', vector: c([1, 0, -0.5, 0]), attrs: {} },
    { collection: 'a', id: 'first', vector: c([1, 0.5, 0, 0]), attrs: {} },
    { collection: 'c', id: 'mirror', vector: c([1, -0.5, 0, 0]), attrs: {} },
    { collection: 'c', id: 'far', vector: c([0, 0, 0, 1]), attrs: {} },
  ];
  const store = await build(recs);
  const hits = await store.search({ query: c([1, 0, 0, 0]), top_k: 5, diversity: 0.5 });
  t.deepEqual(
    hits.map((h) => `${h.collection}/${h.id}`),
    ['a/first', 'c/mirror', 'a/z', 'b/m', 'c/far'],
  );
});

test('diversity: a record without a stored vector carries no redundancy penalty', async (t) => {
  // Searched on a named vector, so a record without a main vector is still a candidate; the
  // redundancy of MMR reads the stored main vectors.
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.createCollection('c');
  await store.setVectorNames('c', ['alt']);
  await store.upsert('c', {
    records: [
      { id: 'x1', vector: [0, 1, 0, 0], vectors: { alt: [1, 0, 0, 0] } },
      { id: 'x2', vector: [0, 1, 0, 0], vectors: { alt: [1, 0.1, 0, 0] } }, // the same main vector as x1
      { id: 'y', vectors: { alt: [1, 0.2, 0, 0] } }, // no main vector
      { id: 'z', vector: [0, 0, 1, 0], vectors: { alt: [0, 0, 0, 1] } },
    ],
  });
  const query = [1, 0, 0, 0];
  t.deepEqual(ids(await store.search({ query, names: ['alt'], top_k: 4 })), ['x1', 'x2', 'y', 'z']);
  t.deepEqual(ids(await store.search({ query, names: ['alt'], top_k: 4, diversity: 0.5 })), ['x1', 'y', 'z', 'x2']);
});

test('diversity is applied after limit_per', async (t) => {
  const recs = randomRecords(30, 300);
  const store = await build(recs);
  const query = randomVector(prng(31), DIM);
  const capped = await store.search({ query, top_k: 5, limit_per: { field: 'g', max: 1 }, diversity: 0.2 });
  t.is(new Set(capped.map((h) => label(h.attrs.g))).size, capped.length, 'still at most one per g');
  t.deepEqual(capped[0], (await store.search({ query, top_k: 1, limit_per: { field: 'g', max: 1 } }))[0]);
});

test('diversity outside [0, 1] or non-finite is 400', async (t) => {
  const store = await build(randomRecords(32, 20));
  const query = randomVector(prng(33), DIM);
  for (const d of [-0.1, 1.0001, 2, -1]) await rejectsWith(t, store.search({ query, diversity: d }), 400, `diversity ${d}`);
  for (const d of ['"0.5"', 'true', '1e999', '-1e999']) {
    await rejectsWith(t, store.searchJson(Buffer.from(`{"query":${JSON.stringify(query)},"diversity":${d}}`)), 400, `raw diversity ${d}`);
  }
  t.is((await store.search({ query, diversity: 0 })).length, 10);
  t.is((await store.search({ query, diversity: 1 })).length, 10);
});

test('diversity NaN or Infinity passed to the library is 400 (not silently ignored)', async (t) => {
  const store = await build(randomRecords(34, 20));
  const query = randomVector(prng(35), DIM);
  // JSON has no NaN or Infinity, so the library must refuse them rather than send null (which the
  // core reads as "no diversity") and answer the plain ranking.
  for (const d of [NaN, Infinity, -Infinity]) {
    const outcome = await store.search({ query, diversity: d }).then(
      () => 'resolved with the plain ranking (diversity silently dropped)',
      (e: { status?: number }) => `rejected with ${e.status}`,
    );
    t.is(outcome, 'rejected with 400', `diversity ${d}`);
  }
});

// ---- rank_by Decay ----------------------------------------------------------------------------

const ORIGIN = 1_700_000_000_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;

type Decay = Omit<DecayRank, 'origin'> & { origin: number };

/** The spec's penalty for one record. */
function penalty(d: Decay, attrs: Record<string, Value>): number {
  const scale = d.scale ?? WEEK;
  const decay = d.decay ?? 0.5;
  const lambda = d.lambda ?? 1;
  let p = 0;
  if (d.field !== '') {
    const v = attrs[d.field];
    let factor = d.missing ?? 1;
    if (v !== undefined && v !== 'Null' && ('DateTime' in v || 'Int' in v)) {
      const ts = Number('DateTime' in v ? v.DateTime : (v as { Int: bigint | number }).Int);
      factor = decay ** (Math.max(0, d.origin - ts) / scale);
    }
    p += lambda * (1 - factor);
  }
  if (d.count_field) {
    const c = attrs[d.count_field];
    const n = c !== undefined && c !== 'Null' && 'Int' in c ? Number(c.Int) : 0;
    p += (d.count_lambda ?? 1) * (1 - n / (n + (d.count_scale ?? 10)));
  }
  return p;
}

function oracleDecay(recs: Rec[], query: number[], d: Decay, top_k: number, min_score?: number): Ranked[] {
  const attrsOf = new Map(recs.map((r) => [`${r.collection}/${r.id}`, r.attrs]));
  return ranking(recs, query)
    .map((h) => ({ ...h, score: h.score - penalty(d, attrsOf.get(`${h.collection}/${h.id}`)!) }))
    .filter((h) => min_score === undefined || h.score >= min_score)
    .sort(ranksBefore)
    .slice(0, top_k);
}

function decayRecords(seed: number, n: number, kind: 'DateTime' | 'Int'): Rec[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const age = Math.round((rand() * 62 - 2) * DAY); // two days in the future up to 60 days old
    const r = rand();
    const t: Value | undefined =
      r < 0.1
        ? undefined
        : r < 0.15
          ? { Str: 'yesterday' }
          : r < 0.2
            ? { Float: ORIGIN - age }
            : kind === 'DateTime'
              ? { DateTime: ORIGIN - age }
              : { Int: ORIGIN - age };
    const hits: Value | undefined = rand() < 0.2 ? undefined : { Int: Math.floor(rand() * 50) };
    return { collection: 'a', id: `r${i}`, vector: randomVector(rand, DIM), attrs: { ...(t ? { t } : {}), ...(hits ? { hits } : {}) } };
  });
}

for (const kind of ['DateTime', 'Int'] as const) {
  test(`rank_by Decay: score = base - lambda x (1 - decay^(age / scale)), ${kind} timestamps, future ones unpenalized; the ranking follows the adjusted score`, async (t) => {
    const recs = decayRecords(kind === 'DateTime' ? 41 : 42, 400, kind);
    const store = await build(recs);
    const rand = prng(43);
    const decays: Decay[] = [
      { field: 't', origin: ORIGIN },
      { field: 't', origin: ORIGIN, scale: 3 * DAY, decay: 0.2, lambda: 0.8 },
      { field: 't', origin: ORIGIN, scale: 30 * DAY, decay: 0.9, lambda: 2, missing: 0.25 },
    ];
    for (let q = 0; q < 3; q++) {
      const query = randomVector(rand, DIM);
      for (const d of decays) {
        const hits = await store.search({ query, top_k: 50, rank_by: { Decay: d } });
        assertMatchesOracle(t, hits, oracleDecay(recs, query, d, 50), 1e-4, `q${q} ${label(d)}`);
      }
    }
  });
}

test('rank_by Decay defaults: scale 7 days, decay 0.5, lambda 1.0, missing 1.0 (no penalty without a usable timestamp)', async (t) => {
  const v = [1, 0, 0, 0, 0, 0, 0, 0];
  const recs: Rec[] = [
    { collection: 'a', id: 'now', vector: v, attrs: { t: { DateTime: ORIGIN } } },
    { collection: 'a', id: 'week', vector: v, attrs: { t: { DateTime: ORIGIN - WEEK } } },
    { collection: 'a', id: 'fortnight', vector: v, attrs: { t: { Int: ORIGIN - 2 * WEEK } } },
    { collection: 'a', id: 'future', vector: v, attrs: { t: { DateTime: ORIGIN + WEEK } } },
    { collection: 'a', id: 'none', vector: v, attrs: {} },
    { collection: 'a', id: 'str', vector: v, attrs: { t: { Str: 'x' } } },
    { collection: 'a', id: 'float', vector: v, attrs: { t: { Float: ORIGIN - WEEK } } },
    { collection: 'a', id: 'null', vector: v, attrs: { t: 'Null' } },
  ];
  const store = await build(recs);
  const hits = await store.search({ query: v, top_k: 10, rank_by: { Decay: { field: 't', origin: ORIGIN } } });
  const score = Object.fromEntries(hits.map((h) => [h.id, h.score]));
  for (const id of ['now', 'future', 'none', 'str', 'float', 'null']) t.true(Math.abs(score[id] - 1) < 1e-6, `${id}: ${score[id]}`);
  t.true(Math.abs(score.week - 0.5) < 1e-6, `week: ${score.week}`);
  t.true(Math.abs(score.fortnight - 0.25) < 1e-6, `fortnight: ${score.fortnight}`);
  t.deepEqual(ids(hits).slice(-2), ['week', 'fortnight']);
  // A missing factor below 1 penalizes exactly the records without a usable timestamp.
  const m = await store.search({ query: v, top_k: 10, rank_by: { Decay: { field: 't', origin: ORIGIN, missing: 0.25, lambda: 0.4 } } });
  const ms = Object.fromEntries(m.map((h) => [h.id, h.score]));
  for (const id of ['none', 'str', 'float', 'null']) t.true(Math.abs(ms[id] - (1 - 0.4 * 0.75)) < 1e-6, `${id}: ${ms[id]}`);
  t.true(Math.abs(ms.now - 1) < 1e-6);
  t.true(Math.abs(ms.week - 0.8) < 1e-6);
});

test('rank_by count term: count_lambda x (1 - n / (n + count_scale)); an absent count pays the full count_lambda', async (t) => {
  const v = [1, 0, 0, 0, 0, 0, 0, 0];
  const recs: Rec[] = [
    { collection: 'a', id: 'n0', vector: v, attrs: { hits: { Int: 0 } } },
    { collection: 'a', id: 'n10', vector: v, attrs: { hits: { Int: 10 } } },
    { collection: 'a', id: 'n30', vector: v, attrs: { hits: { Int: 30 } } },
    { collection: 'a', id: 'absent', vector: v, attrs: {} },
  ];
  const store = await build(recs);
  const only = await store.search({ query: v, top_k: 10, rank_by: { Decay: { field: '', origin: ORIGIN, count_field: 'hits' } } });
  const s = Object.fromEntries(only.map((h) => [h.id, h.score]));
  t.true(Math.abs(s.n0 - 0) < 1e-6, `n0 ${s.n0}`);
  t.true(Math.abs(s.n10 - 0.5) < 1e-6, `n10 ${s.n10}`);
  t.true(Math.abs(s.n30 - 0.75) < 1e-6, `n30 ${s.n30}`);
  t.true(Math.abs(s.absent - 0) < 1e-6, `absent ${s.absent}`);
  t.deepEqual(ids(only), ['n30', 'n10', 'absent', 'n0']);
  const tuned = await store.search({
    query: v,
    top_k: 10,
    rank_by: { Decay: { field: '', origin: ORIGIN, count_field: 'hits', count_scale: 30, count_lambda: 0.5 } },
  });
  const u = Object.fromEntries(tuned.map((h) => [h.id, h.score]));
  t.true(Math.abs(u.n30 - 0.75) < 1e-6, `n30 ${u.n30}`);
  t.true(Math.abs(u.absent - 0.5) < 1e-6, `absent ${u.absent}`);
});

test('rank_by with both terms, a filter and paging equals the oracle (the adjustment applies to every candidate)', async (t) => {
  const recs = decayRecords(44, 400, 'DateTime');
  const store = await build(recs);
  const rand = prng(45);
  const d: Decay = {
    field: 't',
    origin: ORIGIN,
    scale: 10 * DAY,
    decay: 0.3,
    lambda: 0.6,
    missing: 0.5,
    count_field: 'hits',
    count_scale: 5,
    count_lambda: 0.3,
  };
  for (let q = 0; q < 4; q++) {
    const query = randomVector(rand, DIM);
    assertMatchesOracle(t, await store.search({ query, top_k: 40, rank_by: { Decay: d } }), oracleDecay(recs, query, d, 40), 1e-4, `q${q}`);
    const withHits = recs.filter((r) => r.attrs.hits !== undefined && Number((r.attrs.hits as { Int: bigint }).Int) >= 25);
    assertMatchesOracle(
      t,
      await store.search({ query, top_k: 15, rank_by: { Decay: d }, filter: [{ Ge: ['hits', { Int: 25 }] }] }),
      oracleDecay(withHits, query, d, 15),
      1e-4,
      `q${q} filtered`,
    );
    const page = await store.search({ query, top_k: 10, offset: 10, rank_by: { Decay: d } });
    assertMatchesOracle(t, page, oracleDecay(recs, query, d, 20).slice(10), 1e-4, `q${q} offset 10`);
  }
});

test('min_score compares the final, rank_by-adjusted score', async (t) => {
  const v = [1, 0, 0, 0, 0, 0, 0, 0];
  const tilt = (y: number) => [1, y, 0, 0, 0, 0, 0, 0];
  const recs: Rec[] = [
    { collection: 'a', id: 'old-close', vector: v, attrs: { t: { DateTime: ORIGIN - WEEK } } }, // 1.0 - 0.5
    { collection: 'a', id: 'new-far', vector: tilt(1), attrs: { t: { DateTime: ORIGIN } } }, // ~0.7071 - 0
    { collection: 'a', id: 'new-close', vector: v, attrs: { t: { DateTime: ORIGIN } } }, // 1.0
  ];
  const store = await build(recs);
  const rank_by = { Decay: { field: 't', origin: ORIGIN } };
  t.deepEqual(ids(await store.search({ query: v, rank_by, min_score: 0.6 })), ['new-close', 'new-far']);
  t.deepEqual(ids(await store.search({ query: v, rank_by, min_score: 0.45 })), ['new-close', 'new-far', 'old-close']);
  t.deepEqual(ids(await store.search({ query: v, min_score: 0.9 })), ['new-close', 'old-close'], 'without rank_by the base score counts');
  const rand = prng(46);
  const many = decayRecords(47, 300, 'Int');
  const s2 = await build(many);
  const d: Decay = { field: 't', origin: ORIGIN, lambda: 0.5 };
  const query = randomVector(rand, DIM);
  const all = oracleDecay(many, query, d, 300);
  let i = 40;
  while (all[i].score - all[i + 1].score < 1e-3) i++;
  const min_score = (all[i].score + all[i + 1].score) / 2;
  const hits = await s2.search({ query, top_k: 300, rank_by: { Decay: d }, min_score });
  t.is(hits.length, i + 1);
  assertMatchesOracle(t, hits, oracleDecay(many, query, d, 300, min_score), 1e-4);
});

test('rank_by validation: non-positive scale, decay outside (0, 1), negative lambda, count_scale <= 0 with count_field are 400', async (t) => {
  const store = await build(decayRecords(48, 10, 'DateTime'));
  const query = randomVector(prng(49), DIM);
  const bad: Record<string, unknown>[] = [
    { field: 't', origin: ORIGIN, scale: 0 },
    { field: 't', origin: ORIGIN, scale: -WEEK },
    { field: 't', origin: ORIGIN, decay: 0 },
    { field: 't', origin: ORIGIN, decay: 1 },
    { field: 't', origin: ORIGIN, decay: 1.5 },
    { field: 't', origin: ORIGIN, decay: -0.5 },
    { field: 't', origin: ORIGIN, lambda: -0.1 },
    { field: 't', origin: ORIGIN, count_field: 'hits', count_scale: 0 },
    { field: 't', origin: ORIGIN, count_field: 'hits', count_scale: -1 },
    { origin: ORIGIN },
    { field: 't' },
    { field: 't', origin: ORIGIN, nope: 1 },
  ];
  for (const d of bad) await rejectsWith(t, store.search({ query, rank_by: { Decay: d as never } }), 400, label(d));
  await rejectsWith(t, store.search({ query, rank_by: { Linear: {} } as never }), 400, 'not Decay');
  // The edges that are allowed.
  for (const d of [{ decay: 0.999 }, { decay: 0.001 }, { lambda: 0 }, { scale: 1 }, { count_field: 'hits', count_scale: 0.01 }, { count_scale: 0 }]) {
    t.is((await store.search({ query, top_k: 3, rank_by: { Decay: { field: 't', origin: ORIGIN, ...d } } })).length, 3, label(d));
  }
});
