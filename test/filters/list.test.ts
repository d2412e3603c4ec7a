// POST /list through the library: filtered records with score 0 in storage (insertion) order,
// limit default 100 (at most 10000), offset/limit paging, projection, order_by over the whole match
// set before the page is cut, the trailing bucket rule, and the scope rules.
import test from 'ava';
import { type Hit, type RecordInput, type Value, Store } from '../../lib/index';
import { prng, rejectsWith, tempDir } from '../core/helpers';
import { ids, vec } from './util';

async function filled(n: number, attrs: (i: number) => Record<string, Value> | undefined, coll = 'c'): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  const recs: RecordInput[] = Array.from({ length: n }, (_, i) => {
    const a = attrs(i);
    return { id: `r${String(i).padStart(4, '0')}`, vector: vec(i), ...(a ? { attrs: a } : {}) };
  });
  for (let i = 0; i < recs.length; i += 90) await store.upsert(coll, { records: recs.slice(i, i + 90) });
  return store;
}

const rid = (i: number) => `r${String(i).padStart(4, '0')}`;

/** A permutation of 0..n-1 from a seed: distinct sort keys in a scrambled storage order. */
function permutation(n: number, seed: number): number[] {
  const rand = prng(seed);
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

test('the default limit is 100, in storage (insertion) order, every score 0', async (t) => {
  const store = await filled(250, (i) => ({ i: { Int: i } }));
  const hits = await store.list();
  t.is(hits.length, 100);
  t.deepEqual(
    ids(hits),
    Array.from({ length: 100 }, (_, i) => rid(i)),
  );
  t.true(hits.every((h) => h.score === 0 && h.collection === 'c'));
  t.deepEqual(hits[7].attrs, { i: { Int: 7n } });
  t.is((await store.list({ filter: [] })).length, 100);
});

test('storage order spans a sealed segment and in-memory rows', async (t) => {
  const store = await Store.open({ path: tempDir('filters-list'), dimension: 4 });
  await store.upsert('c', { records: Array.from({ length: 30 }, (_, i) => ({ id: rid(i), vector: vec(i) })) });
  await store.flush();
  await store.upsert('c', { records: Array.from({ length: 30 }, (_, i) => ({ id: rid(30 + i), vector: vec(i) })) });
  t.deepEqual(
    ids(await store.list({ limit: 1000 })),
    Array.from({ length: 60 }, (_, i) => rid(i)),
  );
  await store.close();
});

test('offset and limit page through the match set with no gap or overlap', async (t) => {
  const store = await filled(500, (i) => ({ odd: { Bool: i % 2 === 1 } }));
  const filter = [{ Eq: ['odd', { Bool: true }] as [string, Value] }];
  const all = ids(await store.list({ filter, limit: 10000 }));
  t.is(all.length, 250);
  const paged: string[] = [];
  for (let offset = 0; offset < 300; offset += 37) paged.push(...ids(await store.list({ filter, offset, limit: 37 })));
  t.deepEqual(paged, all);
  t.deepEqual(await store.list({ filter, offset: 250 }), []);
  t.deepEqual(await store.list({ filter, offset: 10_000_000, limit: 5 }), []);
  t.deepEqual(ids(await store.list({ filter, offset: 248 })), all.slice(248));
});

test('limit is at most 10000 (10001 is 400); limit 0 returns an empty page', async (t) => {
  const store = await filled(5, () => undefined);
  t.is((await store.list({ limit: 10000 })).length, 5);
  await rejectsWith(t, store.list({ limit: 10001 }), 400);
  await rejectsWith(t, store.list({ limit: -1 }), 400);
  await rejectsWith(t, store.list({ offset: -1 }), 400);
  await rejectsWith(t, store.list({ limit: 1.5 }), 400);
  t.deepEqual(await store.list({ limit: 0 }), []);
});

test('projection: include_attributes keeps only those keys, exclude_attributes drops them; both at once is 400', async (t) => {
  const store = await filled(3, (i) => ({ a: { Int: i }, b: { Str: 'x' }, c: 'Null' }));
  for (const h of await store.list({ include_attributes: ['a', 'c', 'nokey'] })) t.deepEqual(Object.keys(h.attrs).sort(), ['a', 'c']);
  for (const h of await store.list({ exclude_attributes: ['a'] })) t.deepEqual(h.attrs, { b: { Str: 'x' }, c: 'Null' });
  for (const h of await store.list({ include_attributes: [] })) t.deepEqual(h.attrs, {});
  await rejectsWith(t, store.list({ include_attributes: ['a'], exclude_attributes: ['b'] }), 400);
  // Projection does not change which records match or their order.
  t.deepEqual(ids(await store.list({ filter: [{ Eq: ['b', { Str: 'x' }] }], exclude_attributes: ['b'] })), [rid(0), rid(1), rid(2)]);
});

test('order_by sorts the whole match set before the page is cut, ascending and descending', async (t) => {
  const perm = permutation(400, 7);
  const store = await filled(400, (i) => ({ k: { Int: perm[i] * 1000 - 200_000 }, even: { Bool: perm[i] % 2 === 0 } }));
  const byKey = (desc: boolean, keep: (k: number) => boolean) =>
    Array.from({ length: 400 }, (_, i) => i)
      .filter((i) => keep(perm[i]))
      .sort((a, b) => (desc ? perm[b] - perm[a] : perm[a] - perm[b]))
      .map(rid);
  // The first page holds the smallest keys of all 400, not a sorted first page of storage order.
  t.deepEqual(ids(await store.list({ order_by: { field: 'k' }, limit: 10 })), byKey(false, () => true).slice(0, 10));
  t.deepEqual(ids(await store.list({ order_by: { field: 'k', descending: true }, limit: 10 })), byKey(true, () => true).slice(0, 10));
  t.deepEqual(
    ids(await store.list({ order_by: { field: 'k', descending: false }, limit: 10000 })),
    byKey(false, () => true),
  );
  // With a filter, paged.
  const filter = [{ Eq: ['even', { Bool: true }] as [string, Value] }];
  const paged: string[] = [];
  for (let offset = 0; offset < 200; offset += 30)
    paged.push(...ids(await store.list({ filter, order_by: { field: 'k', descending: true }, offset, limit: 30 })));
  t.deepEqual(
    paged,
    byKey(true, (k) => k % 2 === 0),
  );
});

test('order_by orders Int numerically across 64 bits, Str by bytes, Float, Bool and DateTime naturally', async (t) => {
  const cases: [string, Value[]][] = [
    ['Int', [{ Int: 2n ** 63n - 1n }, { Int: -(2n ** 63n) }, { Int: 2n ** 53n + 1n }, { Int: 2n ** 53n }, { Int: -1n }]],
    ['Str', [{ Str: 'é' }, { Str: 'a' }, { Str: 'B' }, { Str: '😀' }, { Str: 'ｚ' }, { Str: 'ab' }]],
    ['Float', [{ Float: 1.5 }, { Float: -2.5 }, { Float: 1e300 }, { Float: 0.25 }]],
    ['Bool', [{ Bool: true }, { Bool: false }]],
    ['DateTime', [{ DateTime: 1_700_000_000_000n }, { DateTime: -5n }, { DateTime: 3n }]],
  ];
  const sorted: Record<string, number[]> = {
    Int: [1, 4, 3, 2, 0],
    Str: [2, 1, 5, 0, 4, 3], // B < a < ab < é < ｚ < 😀 as UTF-8 bytes
    Float: [1, 3, 0, 2],
    Bool: [1, 0],
    DateTime: [1, 2, 0],
  };
  for (const [variant, values] of cases) {
    const store = await filled(values.length, (i) => ({ v: values[i] }));
    t.deepEqual(ids(await store.list({ order_by: { field: 'v' } })), sorted[variant].map(rid), `${variant} ascending`);
    t.deepEqual(ids(await store.list({ order_by: { field: 'v', descending: true } })), [...sorted[variant]].reverse().map(rid), `${variant} descending`);
  }
});

test('trailing bucket: other variants, Null, List and absent attributes trail in storage order, also when descending', async (t) => {
  const values: (Value | undefined)[] = [
    { Int: 5 }, // r0: the first orderable value: the order is over Int
    { Str: 'x' }, // r1 trails
    { Int: 2 }, // r2
    undefined, // r3 trails (absent)
    'Null', // r4 trails
    { List: ['a'] }, // r5 trails
    { Int: 9 }, // r6
    { Float: 1 }, // r7 trails (Float is not Int)
    { DateTime: 1 }, // r8 trails
    { Int: -3 }, // r9
  ];
  const store = await filled(values.length, (i): Record<string, Value> => (values[i] === undefined ? { other: { Int: 1 } } : { v: values[i]! }));
  const trailing = [1, 3, 4, 5, 7, 8].map(rid);
  t.deepEqual(ids(await store.list({ order_by: { field: 'v' } })), [...[9, 2, 0, 6].map(rid), ...trailing]);
  t.deepEqual(ids(await store.list({ order_by: { field: 'v', descending: true } })), [...[6, 0, 2, 9].map(rid), ...trailing]);
  // Paging cuts the same sequence.
  t.deepEqual(ids(await store.list({ order_by: { field: 'v', descending: true }, offset: 3, limit: 4 })), [rid(9), ...trailing.slice(0, 3)]);
});

test('trailing bucket: the first orderable value in storage order fixes the type, after leading Null, List and absent values', async (t) => {
  const values: (Value | undefined)[] = ['Null', { List: ['z'] }, undefined, { Str: 'b' }, { Int: 1 }, { Str: 'a' }, { Bool: true }, { Str: 'c' }];
  const store = await filled(values.length, (i) => (values[i] === undefined ? undefined : { v: values[i]! }));
  const trailing = [0, 1, 2, 4, 6].map(rid);
  t.deepEqual(ids(await store.list({ order_by: { field: 'v' } })), [...[5, 3, 7].map(rid), ...trailing]);
  t.deepEqual(ids(await store.list({ order_by: { field: 'v', descending: true } })), [...[7, 3, 5].map(rid), ...trailing]);
  // No orderable value at all: everything trails, in storage order.
  t.deepEqual(
    ids(await store.list({ order_by: { field: 'nokey', descending: true } })),
    values.map((_, i) => rid(i)),
  );
});

test('order_by: the first orderable value is taken among the matching records only', async (t) => {
  const values: Value[] = [{ Str: 'm' }, { Int: 3 }, { Int: 1 }, { Str: 'a' }, { Int: 2 }];
  const store = await filled(values.length, (i) => ({ v: values[i], keep: { Bool: i !== 0 } }));
  const filter = [{ Eq: ['keep', { Bool: true }] as [string, Value] }];
  // r0 (Str 'm') is filtered out, so r1's Int decides; r3 (Str) trails.
  t.deepEqual(ids(await store.list({ filter, order_by: { field: 'v' } })), [2, 4, 1, 3].map(rid));
});

test('order_by: a malformed order_by is 400', async (t) => {
  const store = await filled(3, (i) => ({ v: { Int: i } }));
  for (const body of ['{"order_by":{}}', '{"order_by":{"field":""}}', '{"order_by":{"field":"v","descending":"yes"}}', '{"order_by":"v"}']) {
    await rejectsWith(t, store.listJson(Buffer.from(body)), 400, body);
  }
});

test('scope: several collections; missing collections contribute nothing; empty scope means every collection; aliases resolve', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  for (const c of ['c1', 'c2', 'c3']) {
    await store.upsert(c, { records: Array.from({ length: 4 }, (_, i) => ({ id: `${c}-${i}`, vector: vec(i), attrs: { i: { Int: i } } })) });
  }
  await store.putAlias('al', 'c3');
  const keys = (hits: Hit[]) => hits.map((h) => `${h.collection}/${h.id}`).sort();
  const of = (...cs: string[]) => cs.flatMap((c) => Array.from({ length: 4 }, (_, i) => `${c}/${c}-${i}`)).sort();
  t.deepEqual(keys(await store.list({ scope: ['c1', 'c3'] })), of('c1', 'c3'));
  t.deepEqual(keys(await store.list({ scope: ['c2', 'nope'] })), of('c2'));
  t.deepEqual(await store.list({ scope: ['nope'] }), []);
  t.deepEqual(keys(await store.list({ scope: [] })), of('c1', 'c2', 'c3'));
  t.deepEqual(keys(await store.list({})), of('c1', 'c2', 'c3'));
  const aliased = await store.list({ scope: ['al'] });
  t.deepEqual(keys(aliased), of('c3'));
  t.true(
    aliased.every((h) => h.collection === 'c3'),
    'hits name the concrete collection',
  );
  t.deepEqual(keys(await store.list({ scope: ['c1', 'c2'], filter: [{ Ge: ['i', { Int: 2 }] }] })), ['c1/c1-2', 'c1/c1-3', 'c2/c2-2', 'c2/c2-3']);
});

test('scope naming a collection twice (directly and through an alias) lists each record once', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c1', { records: Array.from({ length: 3 }, (_, i) => ({ id: `x${i}`, vector: vec(i) })) });
  await store.putAlias('al', 'c1');
  t.deepEqual(ids(await store.list({ scope: ['c1', 'al', 'c1'] })), ['x0', 'x1', 'x2']);
});

test('order_by runs over the match set of every collection in scope, and over attributes the projection hides', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  const perm = permutation(60, 9);
  for (const c of ['c1', 'c2', 'c3']) {
    await store.upsert(c, {
      records: Array.from({ length: 20 }, (_, i) => ({ id: `${c}-${i}`, vector: vec(i), attrs: { k: { Int: perm[(Number(c[1]) - 1) * 20 + i] } } })),
    });
  }
  const all = (await store.list({ limit: 1000 })).map((h) => ({ key: `${h.collection}/${h.id}`, k: Number((h.attrs.k as { Int: bigint }).Int) }));
  const asc = [...all].sort((a, b) => a.k - b.k).map((x) => x.key);
  const got = (await store.list({ order_by: { field: 'k' }, limit: 15, offset: 10, exclude_attributes: ['k'] })).map((h) => `${h.collection}/${h.id}`);
  t.deepEqual(got, asc.slice(10, 25));
  const desc = (await store.list({ scope: ['c3', 'c1'], order_by: { field: 'k', descending: true }, include_attributes: [], limit: 100 })).map(
    (h) => `${h.collection}/${h.id}`,
  );
  t.deepEqual(
    desc,
    [...all]
      .filter((x) => !x.key.startsWith('c2'))
      .sort((a, b) => b.k - a.k)
      .map((x) => x.key),
  );
});

test('no matches, an empty store and an empty collection all give []', async (t) => {
  const store = await filled(10, (i) => ({ i: { Int: i } }));
  t.deepEqual(await store.list({ filter: [{ Gt: ['i', { Int: 100 }] }] }), []);
  t.deepEqual(await store.list({ filter: [{ Gt: ['i', { Int: 100 }] }], order_by: { field: 'i' } }), []);
  const empty = await Store.open({ inMemory: true, dimension: 4 });
  t.deepEqual(await empty.list(), []);
  await empty.createCollection('e');
  t.deepEqual(await empty.list({ scope: ['e'] }), []);
  const dim0 = await Store.open({ inMemory: true, dimension: 0 });
  await dim0.upsert('t', { records: [{ id: 'x', attrs: { i: { Int: 1 } } }] });
  t.deepEqual(ids(await dim0.list({ filter: [{ Eq: ['i', { Int: 1 }] }] })), ['x'], 'a keyword-only store lists too');
});

test('/list returns records without a vector as well', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 4 });
  await store.upsert('c', {
    records: [
      { id: 'v', vector: vec(1), attrs: { k: { Int: 1 } } },
      { id: 'text-only', attrs: { k: { Int: 2 } } },
    ],
  });
  t.deepEqual(ids(await store.list({ order_by: { field: 'k', descending: true } })), ['text-only', 'v']);
});
