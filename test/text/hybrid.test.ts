// /hybrid-search through the library: the fused ranking is recomputed in the test from the two
// legs the store itself answers (`search` and `textSearch`, each `candidates` deep, same scope and
// filter), fused with weighted RRF (rank 1-based), ordered by (score desc, collection, id).
import test, { type ExecutionContext } from 'ava';
import type { Filter, Hit, HybridSearchRequest, Store } from '../../lib/index';
import { prng, randomVector, ranksBefore, rejectsWith } from '../core/helpers';
import { type Doc, type FtsFieldEntry, assertRanking, ids, str, storeOf } from './util';

const WORDS = ['river', 'stone', 'bridge', 'forest', 'lantern', 'harbor', 'meadow', 'copper'];

/** 40 records over two collections: most with a vector and a body, some text-only, some vector-only. */
function corpus(): Doc[] {
  const rand = prng(7);
  const out: Doc[] = [];
  for (let i = 0; i < 40; i++) {
    const collection = i % 3 === 0 ? 'k' : 'h';
    const words = Array.from({ length: 2 + Math.floor(rand() * 6) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    const textOnly = i % 7 === 3;
    const vectorOnly = i % 11 === 5;
    out.push({
      collection,
      id: `d${String(i).padStart(2, '0')}`,
      ...(textOnly ? {} : { vector: randomVector(rand, 4) }),
      attrs: { ...(vectorOnly ? {} : { body: str(words.join(' ')) }), title: str(WORDS[i % WORDS.length]), g: str(i % 4 === 0 ? 'a' : 'b'), n: { Int: i } },
    });
  }
  return out;
}

const DOCS = corpus();
const SCHEMAS: Record<string, FtsFieldEntry[]> = { h: ['body', 'title'], k: ['body', 'title'] };
const Q = [0.3, -0.7, 0.2, 0.6];

interface Fused {
  collection: string;
  id: string;
  score: number;
  vector?: { rank: number; score: number };
  text?: { rank: number; score: number };
}

/** The two legs as the store answers them, fused in the test. */
async function fuse(store: Store, body: HybridSearchRequest): Promise<Fused[]> {
  const candidates = body.candidates ?? 100;
  const common = { top_k: candidates, ...(body.scope ? { scope: body.scope } : {}), ...(body.filter ? { filter: body.filter } : {}) };
  const vectorLeg = await store.search({ query: body.vector!, ...common });
  const textLeg: Hit[] = await store.textSearch({
    ...(body.clauses
      ? { clauses: body.clauses, ...(body.combine ? { combine: body.combine } : {}) }
      : { field: body.field, query: body.text, ...(body.prefix ? { prefix: body.prefix } : {}) }),
    ...common,
  });
  const k = body.rrf_k ?? 60;
  const fused = new Map<string, Fused>();
  const add = (hits: { collection: string; id: string; score: number }[], weight: number, leg: 'vector' | 'text') =>
    hits.forEach((h, i) => {
      const key = `${h.collection}\u0000${h.id}`;
      const f = fused.get(key) ?? { collection: h.collection, id: h.id, score: 0 };
      f.score += weight / (k + i + 1);
      f[leg] = { rank: i, score: h.score };
      fused.set(key, f);
    });
  add(vectorLeg, body.vector_weight ?? 1, 'vector');
  add(textLeg, body.text_weight ?? 1, 'text');
  return [...fused.values()].sort(ranksBefore);
}

async function expectFused(t: ExecutionContext, store: Store, body: HybridSearchRequest, label: string): Promise<Hit[]> {
  const hits = await store.hybridSearch(body);
  const offset = body.offset ?? 0;
  assertRanking(t, hits, (await fuse(store, body)).slice(offset, offset + (body.top_k ?? 10)), label);
  return hits;
}

test('RRF: the fused score sums 1 / (60 + rank) over the legs that returned the document', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const hits = await expectFused(t, store, { vector: Q, field: 'body', text: 'river lantern', top_k: 50 }, 'defaults');
  const f = await fuse(store, { vector: Q, field: 'body', text: 'river lantern', top_k: 50 });
  t.true(
    f.some((x) => x.vector && !x.text) && f.some((x) => x.text && !x.vector) && f.some((x) => x.text && x.vector),
    'the corpus exercises one-leg and two-leg documents',
  );
  t.deepEqual(await store.hybridSearch({ vector: Q, field: 'body', text: 'river lantern' }), hits.slice(0, 10), 'top_k defaults to 10');
});

test('rrf_k and candidates: each leg runs candidates deep; rrf_k 0 is allowed', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  for (const [rrf_k, candidates] of [
    [0, 100],
    [5, 100],
    [60, 3],
    [1, 10],
    [1000, 1],
  ]) {
    await expectFused(t, store, { vector: Q, field: 'body', text: 'forest copper', top_k: 30, rrf_k, candidates }, `rrf_k ${rrf_k} candidates ${candidates}`);
  }
  const shallow = await store.hybridSearch({ vector: Q, field: 'body', text: 'forest copper', top_k: 30, candidates: 3 });
  t.true(shallow.length <= 6, 'at most 3 per leg');
});

test('weights scale each leg; both 1.0 equals unweighted fusion; a weight of 0 leaves that leg contributing 0', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const base = { vector: Q, field: 'body', text: 'harbor meadow', top_k: 40 };
  t.deepEqual(await store.hybridSearch({ ...base, vector_weight: 1, text_weight: 1 }), await store.hybridSearch(base));
  for (const [vector_weight, text_weight] of [
    [2, 0.5],
    [0.1, 3],
    [0, 1],
    [1, 0],
    [0, 0],
  ]) {
    await expectFused(t, store, { ...base, vector_weight, text_weight }, `weights ${vector_weight}/${text_weight}`);
  }
});

test('offset pages the fused ranking, not a leg', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const base = { vector: Q, field: 'body', text: 'stone bridge', candidates: 15 };
  const full = await expectFused(t, store, { ...base, top_k: 40 }, 'full');
  const pages: Hit[] = [];
  for (let offset = 0; offset < 40; offset += 7) pages.push(...(await expectFused(t, store, { ...base, offset, top_k: 7 }, `offset ${offset}`)));
  t.deepEqual(ids(pages), ids(full));
  t.deepEqual(await store.hybridSearch({ ...base, offset: 1_000, top_k: 5 }), []);
});

test("explain: vector and text carry each leg's 0-based rank and own score, plus the text clauses", async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const body = { vector: Q, field: 'body', text: 'copper river', explain: true, top_k: 40 };
  const hits = await expectFused(t, store, body, 'explain');
  const expected = await fuse(store, body);
  for (const h of hits) {
    const e = expected.find((x) => x.collection === h.collection && x.id === h.id)!;
    const a = h.annotations ?? {};
    t.deepEqual(a.vector?.rank, e.vector?.rank, `${h.id} vector rank`);
    t.deepEqual(a.text?.rank, e.text?.rank, `${h.id} text rank`);
    if (e.vector) t.true(Math.abs(a.vector!.score - e.vector.score) <= 1e-5, `${h.id} vector score`);
    if (e.text) t.true(Math.abs(a.text!.score - e.text.score) <= 1e-4 * e.text.score, `${h.id} text score`);
    t.is('vector' in a, !!e.vector, `${h.id}: vector key only when the vector leg returned it`);
    t.is('text' in a, !!e.text, `${h.id}: text key only when the text leg returned it`);
    if (e.text) {
      t.deepEqual(
        a.clauses?.map((c) => c.field),
        ['body'],
        `${h.id} clauses`,
      );
      t.true(Math.abs(a.clauses![0].score - e.text.score) <= 1e-4 * e.text.score);
    }
  }
  t.true(hits.some((h) => h.annotations?.vector?.rank === 0) && hits.some((h) => h.annotations?.text?.rank === 0), 'the best of each leg has rank 0');
  for (const h of await store.hybridSearch({ vector: Q, field: 'body', text: 'copper river' })) t.false('annotations' in h);
});

test('filter applies to both legs, and scope to both', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const filter: Filter = [{ Eq: ['g', str('b')] }];
  const hits = await expectFused(t, store, { vector: Q, field: 'body', text: 'river stone', filter, top_k: 40 }, 'filter');
  t.true(hits.length > 0);
  for (const h of hits) t.deepEqual(h.attrs.g, str('b'));
  const scoped = await expectFused(t, store, { vector: Q, field: 'body', text: 'river stone', scope: ['k'], top_k: 40 }, 'scope');
  t.true(scoped.length > 0 && scoped.every((h) => h.collection === 'k'));
});

test('clauses with combine and prefix make the text leg', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const clauses = [
    { field: 'title', query: 'lant', prefix: true },
    { field: 'body', query: 'meadow' },
  ];
  for (const combine of ['Sum', 'Max'] as const) await expectFused(t, store, { vector: Q, clauses, combine, top_k: 40 }, `clauses ${combine}`);
  await expectFused(t, store, { vector: Q, field: 'title', text: 'cop', prefix: true, top_k: 40 }, 'shorthand prefix');
});

test('limit_per runs on the fused ranking before the page is cut; projection shapes attrs', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const body = { vector: Q, field: 'body', text: 'bridge', top_k: 40 };
  const fused = await fuse(store, body);
  const seen = new Map<string, number>();
  const capped = fused.filter((f) => {
    const g = (DOCS.find((d) => d.collection === f.collection && d.id === f.id)!.attrs!.g as { Str: string }).Str;
    seen.set(g, (seen.get(g) ?? 0) + 1);
    return seen.get(g)! <= 2;
  });
  assertRanking(t, await store.hybridSearch({ ...body, limit_per: { field: 'g', max: 2 } }), capped, 'limit_per');
  const projected = await store.hybridSearch({ ...body, include_attributes: ['n'] });
  t.deepEqual(ids(projected), ids(await store.hybridSearch(body)));
  t.true(projected.every((h) => Object.keys(h.attrs).every((k) => k === 'n')));
  t.is(typeof (projected[0].attrs.n as { Int: bigint }).Int, 'bigint');
});

test('highlight works on hybrid hits the text leg matched', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const hits = await store.hybridSearch({ vector: Q, field: 'body', text: 'lantern', highlight: {}, top_k: 40 });
  const withText = hits.filter((h) => h.annotations?.highlights?.length);
  t.true(withText.length > 0);
  for (const h of withText) {
    const f = h.annotations!.highlights![0].fragments[0];
    t.true(
      f.spans.every(([s, e]) => Buffer.from(f.text).subarray(s, e).toString().toLowerCase() === 'lantern'),
      h.id,
    );
  }
});

test('a dimension-0 store answers 400 for hybrid search (vector is required and cannot be served)', async (t) => {
  const store = await storeOf(
    DOCS.map(({ vector: _, ...d }) => d),
    SCHEMAS,
    0,
  );
  await rejectsWith(t, store.hybridSearch({ vector: Q, field: 'body', text: 'river' }), 400, 'dimension 0 with a vector');
  await rejectsWith(t, store.hybridSearch({ vector: [], field: 'body', text: 'river' }), 400, 'dimension 0 with []');
  await rejectsWith(t, store.hybridSearch({ field: 'body', text: 'river' } as HybridSearchRequest), 400, 'dimension 0 without a vector');
});

test('validation: each malformed /hybrid-search body is 400', async (t) => {
  const store = await storeOf(DOCS, SCHEMAS);
  const v = '"vector":[0.3,-0.7,0.2,0.6]';
  const bad: [string, string][] = [
    ['no vector', '{"field":"body","text":"river"}'],
    ['vector of the wrong length', '{"vector":[1,0],"field":"body","text":"river"}'],
    ['no text leg', `{${v}}`],
    ['field without text', `{${v},"field":"body"}`],
    ['empty clauses', `{${v},"clauses":[]}`],
    ['field+text with clauses', `{${v},"field":"body","text":"river","clauses":[{"field":"body","query":"river"}]}`],
    ['rrf_k negative', `{${v},"field":"body","text":"river","rrf_k":-1}`],
    ['rrf_k a string', `{${v},"field":"body","text":"river","rrf_k":"60"}`],
    ['rrf_k overflowing', `{${v},"field":"body","text":"river","rrf_k":1e999}`],
    ['vector_weight negative', `{${v},"field":"body","text":"river","vector_weight":-0.5}`],
    ['text_weight negative', `{${v},"field":"body","text":"river","text_weight":-1}`],
    ['text_weight null', `{${v},"field":"body","text":"river","text_weight":null}`],
    ['vector_weight overflowing', `{${v},"field":"body","text":"river","vector_weight":1e999}`],
    ['candidates 0', `{${v},"field":"body","text":"river","candidates":0}`],
    ['candidates 10001', `{${v},"field":"body","text":"river","candidates":10001}`],
    ['offset+top_k > 10000', `{${v},"field":"body","text":"river","offset":9995,"top_k":6}`],
    ['min_score', `{${v},"field":"body","text":"river","min_score":0}`],
    ['names', `{${v},"field":"body","text":"river","names":["default"]}`],
    ['query instead of text', `{${v},"field":"body","query":"river"}`],
    ['diversity 2', `{${v},"field":"body","text":"river","diversity":2}`],
    ['include and exclude', `{${v},"field":"body","text":"river","include_attributes":["g"],"exclude_attributes":["n"]}`],
    ['unknown field', `{${v},"field":"body","text":"river","bogus":true}`],
    ['malformed JSON', `{${v},"field":`],
  ];
  for (const [label, body] of bad) await rejectsWith(t, store.hybridSearch(Buffer.from(body)), 400, label);
  const empty = await rejectsWith(t, store.hybridSearch(Buffer.from(`{${v},"clauses":[]}`)), 400);
  t.regex(empty.message, /or use field \+ text$/, 'the fix is spelled as this route spells it');
  t.is(
    (await store.hybridSearch(Buffer.from(`{${v},"field":"body","text":"river","candidates":10000,"offset":9990,"top_k":10}`))).length,
    0,
    'the limits themselves are accepted',
  );
});
