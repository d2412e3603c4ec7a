// POST /aggregate through the library: count always; sums Int while every addend is Int (exact
// beyond 2^53), Float once a Float joins or the Int sum leaves 64 bits, {"Int": 0} with no numeric
// addend; missing and non-numeric values skipped; group_by ordered by count descending, ties by
// value (variant order Str, Int, Bool, List, Float, DateTime, Null, then natural order) with the
// missing-attribute group last; the null group distinct from Null; the 10000-group cap.
import test from 'ava';
import { type AggregateResult, type RecordInput, type Value, Store } from '../../lib/index';
import { rejectsWith } from '../core/helpers';
import { rawUpsert, vec } from './util';

async function storeOf(attrs: (Record<string, Value> | undefined)[], coll = 'c', store?: Store): Promise<Store> {
  const s = store ?? (await Store.open({ inMemory: true, dimension: 4 }));
  const records: RecordInput[] = attrs.map((a, i) => ({ id: `${coll}-${i}`, vector: vec(i), ...(a ? { attrs: a } : {}) }));
  if (records.length) await s.upsert(coll, { records });
  return s;
}

const n = (x: Value) => ({ n: x });

test('count is always reported; without group_by there is no groups key (and no groups_truncated)', async (t) => {
  const store = await storeOf([n({ Int: 1 }), undefined, n({ Str: 'x' })]);
  const r = await store.aggregate({});
  t.deepEqual(r, { count: 3, sums: {} });
  t.false('groups' in r);
  t.false('groups_truncated' in r);
  t.deepEqual(await store.aggregate(), { count: 3, sums: {} });
  const withSum = await store.aggregate({ sum: ['n'] });
  t.false('groups' in withSum);
});

test('sums stay Int while every addend is Int, exact beyond 2^53', async (t) => {
  const store = await storeOf([n({ Int: 2n ** 53n }), n({ Int: 1 }), n({ Int: 2 }), n({ Int: -7 })]);
  t.deepEqual((await store.aggregate({ sum: ['n'] })).sums, { n: { Int: 2n ** 53n - 4n } });
  const odd = await storeOf([n({ Int: 2n ** 53n }), n({ Int: 1 })]);
  t.deepEqual((await odd.aggregate({ sum: ['n'] })).sums, { n: { Int: 2n ** 53n + 1n } }, 'a double would round this');
});

test('an Int sum that leaves the signed 64-bit range becomes Float', async (t) => {
  const up = await storeOf([n({ Int: 2n ** 63n - 1n }), n({ Int: 1 })]);
  t.deepEqual((await up.aggregate({ sum: ['n'] })).sums, { n: { Float: Number(9223372036854775808n) } });
  const down = await storeOf([n({ Int: -(2n ** 63n) }), n({ Int: -1 })]);
  t.deepEqual((await down.aggregate({ sum: ['n'] })).sums, { n: { Float: Number(-9223372036854775809n) } });
  const exact = await storeOf([n({ Int: 2n ** 62n }), n({ Int: 2n ** 62n - 1n })]);
  t.deepEqual((await exact.aggregate({ sum: ['n'] })).sums, { n: { Int: 2n ** 63n - 1n } }, 'exactly 2^63-1 stays Int');
});

test('a Float addend makes the sum Float (a whole-number result stays tagged Float)', async (t) => {
  const store = await storeOf([n({ Int: 1 }), n({ Int: 2 }), n({ Float: 0.5 })]);
  t.deepEqual((await store.aggregate({ sum: ['n'] })).sums, { n: { Float: 3.5 } });
  const whole = await storeOf([n({ Int: 1 }), n({ Float: 2 })]);
  t.deepEqual((await whole.aggregate({ sum: ['n'] })).sums, { n: { Float: 3 } });
  const raw = (await whole.aggregateJson(Buffer.from('{"sum":["n"]}'))).toString('utf8');
  t.regex(raw, /"n":\{"Float":3(\.0)?\}/);
});

test('missing and non-numeric values are skipped, not counted as zero', async (t) => {
  const store = await storeOf([n({ Int: 4 }), n({ Str: '5' }), n({ Bool: true }), n('Null'), n({ List: ['1'] }), undefined, n({ Int: 6 })]);
  const r = await store.aggregate({ sum: ['n'] });
  t.is(r.count, 7);
  t.deepEqual(r.sums, { n: { Int: 10n } });
  // Two attributes at once, each with its own addends.
  const two = await storeOf([{ a: { Int: 1 }, b: { Float: 0.25 } }, { a: { Str: 'x' } }, { b: { Float: 0.5 } }]);
  t.deepEqual((await two.aggregate({ sum: ['a', 'b'] })).sums, { a: { Int: 1n }, b: { Float: 0.75 } });
});

test('a sum with no numeric addend at all reports {"Int": 0}', async (t) => {
  const store = await storeOf([n({ Str: 'x' }), n('Null'), undefined]);
  t.deepEqual((await store.aggregate({ sum: ['n', 'nokey'] })).sums, { n: { Int: 0n }, nokey: { Int: 0n } });
});

test('group_by: groups ordered by count descending, ties by variant (Str, Int, Bool, List, Float, DateTime, Null) then value, missing last', async (t) => {
  const values: (Value | undefined)[] = [
    { Int: 7 },
    { Str: 'zz' },
    { DateTime: 5 },
    'Null',
    undefined,
    { Float: 1.5 },
    { List: ['x'] },
    { Bool: true },
    { Int: 2 },
    { Str: 'b' },
    { Str: 'zz' },
    { Float: -2 },
    { Int: -1 },
    { Bool: false },
    { Str: 'a' },
    { Int: 7 },
    { DateTime: -5 },
    { Str: 'zz' },
  ];
  const store = await storeOf(values.map((v, i): Record<string, Value> => (v === undefined ? { w: { Int: i } } : { g: v, w: { Int: i } })));
  const r = await store.aggregate({ group_by: 'g' });
  t.is(r.count, values.length);
  t.deepEqual(
    r.groups!.map((g) => [g.value, g.count]),
    [
      [{ Str: 'zz' }, 3],
      [{ Int: 7n }, 2],
      [{ Str: 'a' }, 1],
      [{ Str: 'b' }, 1],
      [{ Int: -1n }, 1],
      [{ Int: 2n }, 1],
      [{ Bool: false }, 1],
      [{ Bool: true }, 1],
      [{ List: ['x'] }, 1],
      [{ Float: -2 }, 1],
      [{ Float: 1.5 }, 1],
      [{ DateTime: -5n }, 1],
      [{ DateTime: 5n }, 1],
      ['Null', 1],
      [null, 1],
    ],
  );
  t.false('groups_truncated' in r);
});

test('group_by: Str ties order by bytes and Int ties numerically across 64 bits', async (t) => {
  const values: Value[] = [
    { Str: 'é' },
    { Str: 'a' },
    { Str: 'B' },
    { Str: '😀' },
    { Str: 'ｚ' },
    { Int: 2n ** 63n - 1n },
    { Int: -(2n ** 63n) },
    { Int: 2n ** 53n + 1n },
    { Int: 2n ** 53n },
  ];
  const store = await storeOf(values.map((v) => ({ g: v })));
  t.deepEqual(
    (await store.aggregate({ group_by: 'g' })).groups!.map((g) => g.value),
    [
      { Str: 'B' },
      { Str: 'a' },
      { Str: 'é' },
      { Str: 'ｚ' },
      { Str: '😀' },
      { Int: -(2n ** 63n) },
      { Int: 2n ** 53n },
      { Int: 2n ** 53n + 1n },
      { Int: 2n ** 63n - 1n },
    ],
  );
});

test('group_by: List ties order by natural (element-wise lexicographic) order', async (t) => {
  const lists = [['b'], ['ab'], ['a', 'z'], [], ['a'], ['a', 'b', 'c']];
  const store = await storeOf(lists.map((l) => ({ g: { List: l } })));
  t.deepEqual(
    (await store.aggregate({ group_by: 'g' })).groups!.map((g) => (g.value as { List: string[] }).List),
    [[], ['a'], ['a', 'b', 'c'], ['a', 'z'], ['ab'], ['b']],
  );
});

test('group_by: the null group (records missing the attribute) is distinct from records holding Null', async (t) => {
  const store = await storeOf([{ g: 'Null' }, undefined, { g: 'Null' }, { other: { Int: 1 } }, { g: 'Null' }, { g: { Str: 'x' } }]);
  const r = await store.aggregate({ group_by: 'g' });
  t.deepEqual(
    r.groups!.map((g) => [g.value, g.count]),
    [
      ['Null', 3],
      [null, 2],
      [{ Str: 'x' }, 1],
    ],
  );
  // A larger missing group still sorts by its count.
  const more = await storeOf([{ g: 'Null' }, undefined, undefined, {}]);
  t.deepEqual(
    (await more.aggregate({ group_by: 'g' })).groups!.map((g) => [g.value, g.count]),
    [
      [null, 3],
      ['Null', 1],
    ],
  );
  const raw = (await more.aggregateJson(Buffer.from('{"group_by":"g"}'))).toString('utf8');
  t.true(raw.includes('"value":null'), 'missing is JSON null');
  t.true(raw.includes('"value":"Null"'), 'Null is the bare string');
});

test('group_by: Int 1 and Float 1 are different groups; 0.0 and -0.0 are one', async (t) => {
  const store = await storeOf([{ g: { Int: 1 } }, { g: { Float: 1 } }, { g: { Float: 0 } }]);
  await rawUpsert(store, 'c', `{"records":[{"id":"nz","vector":[${vec(9).join(',')}],"attrs":{"g":{"Float":-0.0}}}]}`);
  const groups = (await store.aggregate({ group_by: 'g' })).groups!;
  t.is(groups.length, 3);
  t.deepEqual(groups[0].count, 2);
  t.is((groups[0].value as { Float: number }).Float, 0);
  t.deepEqual(
    groups.slice(1).map((g) => g.value),
    [{ Int: 1n }, { Float: 1 }],
  );
});

test('group_by with sum: each group sums its own records by the same Int/Float rules', async (t) => {
  const store = await storeOf([
    { g: { Str: 'a' }, n: { Int: 1 } },
    { g: { Str: 'a' }, n: { Int: 2n ** 60n } },
    { g: { Str: 'b' }, n: { Int: 1 } },
    { g: { Str: 'b' }, n: { Float: 0.5 } },
    { g: { Str: 'b' }, n: { Str: 'skip' } },
    { n: { Int: 5 } },
    { g: { Str: 'c' } },
  ]);
  const r = await store.aggregate({ group_by: 'g', sum: ['n'] });
  t.deepEqual(r.sums, { n: { Float: 2 ** 60 + 7.5 } });
  t.deepEqual(r.groups, [
    { value: { Str: 'b' }, count: 3, sums: { n: { Float: 1.5 } } },
    { value: { Str: 'a' }, count: 2, sums: { n: { Int: 2n ** 60n + 1n } } },
    { value: { Str: 'c' }, count: 1, sums: { n: { Int: 0n } } },
    { value: null, count: 1, sums: { n: { Int: 5n } } },
  ]);
});

test('group_by: 10001 distinct values give 10000 groups and groups_truncated true; the later value is dropped', async (t) => {
  const store = await Store.open({ inMemory: true, dimension: 0 });
  const recs = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ id: `r${from + k}`, attrs: { g: { Int: from + k } } }));
  await store.upsert('c', { records: recs(0, 10000) });
  const atCap = await store.aggregate({ group_by: 'g' });
  t.is(atCap.groups!.length, 10000);
  t.false('groups_truncated' in atCap, 'exactly 10000 distinct values: no truncation');
  await store.upsert('c', { records: recs(10000, 10001) });
  const r = await store.aggregate({ group_by: 'g' });
  t.is(r.count, 10001);
  t.is(r.groups!.length, 10000);
  t.is(r.groups_truncated, true);
  t.deepEqual(r.groups![0], { value: { Int: 0n }, count: 1, sums: {} });
  t.deepEqual(r.groups![9999].value, { Int: 9999n });
  // With a filter that leaves 10000 distinct values, nothing is truncated.
  const filtered = await store.aggregate({ group_by: 'g', filter: [{ Ne: ['g', { Int: 5 }] }] });
  t.is(filtered.groups!.length, 10000);
  t.false('groups_truncated' in filtered);
});

test('an empty store, a scope of missing collections and a filter matching nothing all give count 0, not an error', async (t) => {
  const empty = await Store.open({ inMemory: true, dimension: 4 });
  t.deepEqual(await empty.aggregate({}), { count: 0, sums: {} });
  t.deepEqual(await empty.aggregate({ sum: ['n'], group_by: 'g' }), { count: 0, sums: { n: { Int: 0n } }, groups: [] });
  const store = await storeOf([n({ Int: 1 }), n({ Int: 2 })]);
  t.deepEqual(await store.aggregate({ scope: ['nope'], sum: ['n'] }), { count: 0, sums: { n: { Int: 0n } } });
  t.deepEqual(await store.aggregate({ filter: [{ Gt: ['n', { Int: 5 }] }], sum: ['n'], group_by: 'n' }), { count: 0, sums: { n: { Int: 0n } }, groups: [] });
  await store.createCollection('e');
  t.deepEqual(await store.aggregate({ scope: ['e'] }), { count: 0, sums: {} });
});

test('scope and filter restrict what is counted; an empty scope means every collection', async (t) => {
  const store = await storeOf([n({ Int: 1 }), n({ Int: 2 }), n({ Int: 3 })], 'c1');
  await storeOf([n({ Int: 10 }), n({ Int: 20 })], 'c2', store);
  await storeOf([n({ Int: 100 })], 'c3', store);
  await store.putAlias('al', 'c3');
  const sum = (r: AggregateResult) => [r.count, r.sums.n];
  t.deepEqual(sum(await store.aggregate({ sum: ['n'] })), [6, { Int: 136n }]);
  t.deepEqual(sum(await store.aggregate({ scope: [], sum: ['n'] })), [6, { Int: 136n }]);
  t.deepEqual(sum(await store.aggregate({ scope: ['c1', 'al', 'nope'], sum: ['n'] })), [4, { Int: 106n }]);
  t.deepEqual(sum(await store.aggregate({ filter: [{ Ge: ['n', { Int: 3 }] }], sum: ['n'] })), [4, { Int: 133n }]);
});

test('a malformed aggregate body is 400', async (t) => {
  const store = await storeOf([n({ Int: 1 })]);
  for (const body of ['{"sum":"n"}', '{"sum":[1]}', '{"group_by":5}', '{"scope":"c"}', '{"filter":{}}', '{"nope":1}']) {
    await rejectsWith(t, store.aggregateJson(Buffer.from(body)), 400, body);
  }
});
