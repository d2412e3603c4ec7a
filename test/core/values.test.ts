// The spec's Value table through the library: Int and DateTime exact across the signed 64-bit
// range on every path (records, hits, raw bytes), Float round trips that stay Float, every other
// variant, bad Values refused with 400, reserved svc. keys stripped.
import test from 'ava';
import { RawJson } from '../../lib/exact_json';
import { type Hit, type StoredRecord, Store, parseExact, stringifyExact } from '../../lib/index';
import { rejectsWith, tempDir } from './helpers';

const INT_EDGES: bigint[] = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, -1n, 1n];

async function roundTrip(store: Store, attrs: Record<string, unknown>): Promise<{ record: StoredRecord; hit: Hit; raw: string; rawRecords: string }> {
  await store.upsert('v', stringifyExact({ records: [{ id: 'x', vector: [1, 0], attrs }] }));
  const [record] = await store.records('v');
  const [hit] = await store.search({ query: [1, 0] });
  const raw = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  const cursor = await store.recordsCursor('v');
  let rawRecords = '';
  for (let p = await cursor.next(); p !== null; p = await cursor.next()) rawRecords += p.toString('utf8');
  cursor.close();
  return { record, hit, raw, rawRecords };
}

const memory = () => Store.open({ inMemory: true, dimension: 2 });

test('Int is exact at 2^63-1, -2^63, 2^53+1, 0 and -1 through records(), search hits and raw bytes', async (t) => {
  const store = await memory();
  const attrs = Object.fromEntries(INT_EDGES.map((v, i) => [`i${i}`, { Int: v }]));
  const { record, hit, raw, rawRecords } = await roundTrip(store, attrs);
  t.deepEqual(record.attrs, attrs);
  t.deepEqual(hit.attrs, attrs);
  for (const v of INT_EDGES) {
    t.true(raw.includes(`{"Int":${v}}`), `hit bytes carry ${v}`);
    t.true(rawRecords.includes(`{"Int":${v}}`), `record bytes carry ${v}`);
  }
  for (const [k, v] of Object.entries(record.attrs)) t.is(typeof (v as { Int: unknown }).Int, 'bigint', k);
});

test('Int written as raw JSON digits comes back with the same digits', async (t) => {
  const store = await memory();
  await store.upsert(
    'v',
    Buffer.from(
      '{"records":[{"id":"x","vector":[1,0],"attrs":{"max":{"Int":9223372036854775807},"min":{"Int":-9223372036854775808},"big":{"Int":9007199254740993}}}]}',
    ),
  );
  const raw = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  t.true(raw.includes('"max":{"Int":9223372036854775807}'));
  t.true(raw.includes('"min":{"Int":-9223372036854775808}'));
  t.true(raw.includes('"big":{"Int":9007199254740993}'));
  const [rec] = await store.records('v');
  t.deepEqual(rec.attrs, { max: { Int: 9223372036854775807n }, min: { Int: -9223372036854775808n }, big: { Int: 9007199254740993n } });
});

test('DateTime is exact across the signed 64-bit range as well', async (t) => {
  const store = await memory();
  const attrs = Object.fromEntries(INT_EDGES.map((v, i) => [`d${i}`, { DateTime: v }]));
  const { record, hit, raw } = await roundTrip(store, attrs);
  t.deepEqual(record.attrs, attrs);
  t.deepEqual(hit.attrs, attrs);
  t.true(raw.includes('{"DateTime":-9223372036854775808}'));
  // A plain JS number is accepted on the way in and comes back as bigint.
  const now = 1_700_000_000_123;
  const r2 = await roundTrip(store, { at: { DateTime: now } });
  t.deepEqual(r2.record.attrs, { at: { DateTime: BigInt(now) } });
});

test('an Int beyond 64 bits is 400 and changes nothing', async (t) => {
  const store = await memory();
  await store.upsert('v', { records: [{ id: 'keep', vector: [1, 0] }] });
  const before = await store.stats();
  const version = store.commitVersion();
  for (const digits of ['9223372036854775808', '-9223372036854775809', '18446744073709551616', '123456789012345678901234567890']) {
    for (const tag of ['Int', 'DateTime']) {
      const e = await rejectsWith(
        t,
        store.upsert('v', Buffer.from(`{"records":[{"id":"x","vector":[1,0],"attrs":{"a":{"${tag}":${digits}}}}]}`)),
        400,
        `${tag} ${digits}`,
      );
      t.truthy(e.message);
    }
  }
  t.deepEqual(await store.stats(), before);
  t.is(store.commitVersion(), version);
});

test('an Int or DateTime that is not an integer is 400', async (t) => {
  const store = await memory();
  for (const bad of ['{"Int":1.5}', '{"Int":"5"}', '{"Int":true}', '{"Int":null}', '{"DateTime":1.5}', '{"DateTime":"2024-01-01"}', '{"Int":[1]}']) {
    await rejectsWith(t, store.upsert('v', Buffer.from(`{"records":[{"id":"x","vector":[1,0],"attrs":{"a":${bad}}}]}`)), 400, bad);
  }
  t.deepEqual(await store.collections(), []);
});

test('Float round-trips exactly and stays Float: 1.0 shows 1.0, -0.0 shows -0.0, 1e300 and 5e-324 survive', async (t) => {
  const store = await memory();
  // Sent as raw JSON text, literally as written here.
  const literals = [
    '1.0',
    '-0.0',
    '0.0',
    '1e300',
    '5e-324',
    '0.1',
    '-2.5',
    '1.7976931348623157e308',
    '2.2250738585072014e-308',
    '123456789.125',
    '3.0',
    '1e21',
    '-1e-7',
  ];
  const attrs = literals.map((l, i) => `"f${i}":{"Float":${l}}`).join(',');
  await store.upsert('v', Buffer.from(`{"records":[{"id":"x","vector":[1,0],"attrs":{${attrs}}}]}`));
  const [record] = await store.records('v');
  const [hit] = await store.search({ query: [1, 0] });
  for (const [i, l] of literals.entries()) {
    for (const got of [record.attrs[`f${i}`], hit.attrs[`f${i}`]]) {
      t.true(typeof got === 'object' && 'Float' in got, `f${i} is still a Float`);
      t.true(Object.is((got as { Float: number }).Float, Number(l)), `f${i}: ${(got as { Float: number }).Float} vs ${l}`);
    }
  }
  const raw = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  const cursor = await store.recordsCursor('v');
  let rawRecords = '';
  for (let p = await cursor.next(); p !== null; p = await cursor.next()) rawRecords += p.toString('utf8');
  cursor.close();
  for (const text of [raw, rawRecords]) {
    t.true(text.includes('"f0":{"Float":1.0}'), 'a whole number stays visibly a Float');
    t.true(text.includes('"f1":{"Float":-0.0}'), '-0.0 keeps its sign');
    t.true(text.includes('"f2":{"Float":0.0}'));
    t.true(text.includes('"f10":{"Float":3.0}'));
  }
});

test('Float values given as JS numbers round-trip through the object API, -0 included', async (t) => {
  const store = await memory();
  const floats = [1, -0, 1e300, 5e-324, 0.1, Number.MAX_VALUE, Number.MIN_VALUE];
  const attrs = Object.fromEntries(floats.map((v, i) => [`f${i}`, { Float: v }]));
  const { record } = await roundTrip(store, attrs);
  for (const [i, v] of floats.entries()) t.true(Object.is((record.attrs[`f${i}`] as { Float: number }).Float, v), `f${i}: ${v}`);
});

test('a whole number sent as Float (written 5, not 5.0) comes back as Float 5.0, never as Int', async (t) => {
  const store = await memory();
  await store.upsert('v', Buffer.from('{"records":[{"id":"x","vector":[1,0],"attrs":{"a":{"Float":5},"b":{"Float":-0},"c":{"Float":18446744073709551615}}}]}'));
  const raw = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  t.true(raw.includes('"a":{"Float":5.0}'), raw);
  const [rec] = await store.records('v');
  t.deepEqual(rec.attrs.a, { Float: 5 });
  t.deepEqual(rec.attrs.c, { Float: Number(18446744073709551615n) });
});

test('a Float beyond the double range is 400', async (t) => {
  const store = await memory();
  await rejectsWith(t, store.upsert('v', Buffer.from('{"records":[{"id":"x","vector":[1,0],"attrs":{"a":{"Float":1e400}}}]}')), 400);
  await rejectsWith(t, store.upsert('v', Buffer.from('{"records":[{"id":"x","vector":[1,0],"attrs":{"a":{"Float":"1.5"}}}]}')), 400);
});

test('Bool, List, DateTime and the bare string Null round-trip', async (t) => {
  const store = await memory();
  const attrs = {
    yes: { Bool: true },
    no: { Bool: false },
    tags: { List: ['a', 'b', '', 'ünï', 'a'] },
    empty: { List: [] },
    when: { DateTime: 1_700_000_000_000n },
    nothing: 'Null',
  };
  const { record, hit, raw } = await roundTrip(store, attrs);
  t.deepEqual(record.attrs, attrs);
  t.deepEqual(hit.attrs, attrs);
  t.true(raw.includes('"nothing":"Null"'), 'Null is the bare string, not an object');
});

test('Str keeps unicode, escapes, quotes and control characters byte for byte', async (t) => {
  const store = await memory();
  const strings = [
    'héllo wörld',
    'quote " and \\ backslash',
    'line\nbreak\ttab\rreturn',
    '\u0000\u0001\u001f',
    '😀 𝄞 emoji',
    '\u2028\u2029',
    '{"Int":5}',
    '',
    'Null',
    '</script>',
  ];
  const attrs = Object.fromEntries(strings.map((s, i) => [`s${i}`, { Str: s }]));
  const { record, hit, raw } = await roundTrip(store, attrs);
  t.deepEqual(record.attrs, attrs);
  t.deepEqual(hit.attrs, attrs);
  t.notThrows(() => JSON.parse(raw));
  // Unicode ids and attribute keys too.
  await store.upsert('v', stringifyExact({ records: [{ id: 'ïd "q" 😀', vector: [0, 1], attrs: { ключ: { Str: 'значение' } } }] }));
  const recs = await store.records('v');
  t.deepEqual(recs.find((r) => r.id === 'ïd "q" 😀')?.attrs, { ключ: { Str: 'значение' } });
});

test('a string that looks like an Int Value inside a Str stays a string', async (t) => {
  const store = await memory();
  const { record } = await roundTrip(store, { s: { Str: '{"Int":123}' }, t: { Str: 'x{"Int":9223372036854775807}' } });
  t.deepEqual(record.attrs, { s: { Str: '{"Int":123}' }, t: { Str: 'x{"Int":9223372036854775807}' } });
});

test('attribute keys named like Value variants read back (Int, DateTime, Float keys holding any Value)', async (t) => {
  const store = await memory();
  const attrs = { Int: 'Null', DateTime: 'Null', Str: { Int: 7n }, Float: { Str: 'f' }, List: { Bool: true } };
  const { record, hit } = await roundTrip(store, attrs);
  t.deepEqual(record.attrs, attrs);
  t.deepEqual(hit.attrs, attrs);
});

test('an unknown Value variant, a two-key object, a bare string other than Null, or a raw number is 400', async (t) => {
  const store = await memory();
  const bads = [
    '{"Text":"x"}',
    '{"Str":"a","Int":1}',
    '{}',
    '"hello"',
    '"null"',
    '5',
    'null',
    'true',
    '["a"]',
    '{"List":[1,2]}',
    '{"List":"a"}',
    '{"Bool":"true"}',
    '{"Str":5}',
  ];
  for (const bad of bads) {
    const e = await rejectsWith(t, store.upsert('v', Buffer.from(`{"records":[{"id":"x","vector":[1,0],"attrs":{"a":${bad}}}]}`)), 400, bad);
    t.regex(e.message, /attrs\.a/, `${bad}: the message names the field`);
  }
  t.deepEqual(await store.collections(), [], 'nothing was created');
});

test('an attribute key sent twice keeps its first place and its last Value (JSON last-one-wins), and later attributes still filter', async (t) => {
  const store = await memory();
  const attrs = '{"a":{"Int":1},"b":{"Str":"x"},"a":{"Str":"a longer string than the Int was"},"c":{"Bool":true},"b":{"Int":2}}';
  await store.upsert(
    'v',
    Buffer.from(`{"records":[{"id":"x","vector":[1,0],"attrs":${attrs}},{"id":"y","vector":[0,1],"attrs":{"a":{"Int":1},"a":{"Int":3}}}]}`),
  );
  const records = await store.records('v');
  const x = records.find((r) => r.id === 'x');
  t.deepEqual(Object.keys(x?.attrs ?? {}), ['a', 'b', 'c']);
  t.deepEqual(x?.attrs, { a: { Str: 'a longer string than the Int was' }, b: { Int: 2n }, c: { Bool: true } });
  t.deepEqual(records.find((r) => r.id === 'y')?.attrs, { a: { Int: 3n } });
  const hits = await store.search({ query: [1, 0], filter: [{ Eq: ['c', { Bool: true }] }, { Eq: ['b', { Int: 2 }] }] });
  t.deepEqual(
    hits.map((h) => h.id),
    ['x'],
  );
});

test('reserved svc. keys are stripped from caller attrs on upsert', async (t) => {
  const store = await memory();
  await store.upsert('v', {
    records: [
      {
        id: 'x',
        vector: [1, 0],
        attrs: {
          'svc.text': { Str: 'forged' },
          'svc.created_at': { DateTime: 1 },
          'svc.parent_id': { Str: 'p' },
          'svc.chunk_index': { Int: 3 },
          keep: { Int: 1 },
          svcx: { Bool: true },
        },
      },
      { id: 'y', vector: [0, 1], attrs: { 'svc.expires_at': { DateTime: 5 } } },
    ],
  });
  const recs = (await store.records('v')).sort((a, b) => a.id.localeCompare(b.id));
  t.deepEqual(
    recs.map((r) => r.attrs),
    [{ keep: { Int: 1n }, svcx: { Bool: true } }, {}],
  );
  const hits = await store.search({ query: [1, 0] });
  t.false(hits.some((h) => Object.keys(h.attrs).some((k) => k.startsWith('svc.'))));
});

test('Values survive a checkpoint and a reopen exactly', async (t) => {
  const dir = tempDir();
  const body =
    '{"records":[{"id":"x","vector":[1,0],"attrs":{"max":{"Int":9223372036854775807},"min":{"Int":-9223372036854775808},' +
    '"f":{"Float":1.0},"z":{"Float":-0.0},"tiny":{"Float":5e-324},"s":{"Str":"\\u00e9\\"\\n"},"l":{"List":["x"]},"n":"Null","b":{"Bool":false},"d":{"DateTime":-1}}}]}';
  const attrs = {
    max: { Int: 2n ** 63n - 1n },
    min: { Int: -(2n ** 63n) },
    f: { Float: 1 },
    z: { Float: -0 },
    tiny: { Float: 5e-324 },
    s: { Str: 'é"\n' },
    l: { List: ['x'] },
    n: 'Null',
    b: { Bool: false },
    d: { DateTime: -1n },
  };
  let store = await Store.open({ path: dir, dimension: 2 });
  await store.upsert('v', Buffer.from(body));
  const before = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  await store.close();
  store = await Store.open({ path: dir });
  const [rec] = await store.records('v');
  t.deepEqual(rec.attrs, attrs);
  t.true(Object.is((rec.attrs.z as { Float: number }).Float, -0));
  const raw = (await store.searchJson(Buffer.from('{"query":[1,0]}'))).toString('utf8');
  t.is(raw, before, 'hit bytes are identical after the reopen');
  t.true(raw.includes('"f":{"Float":1.0}'));
  t.true(raw.includes('"z":{"Float":-0.0}'));
  await store.close();
});

test('parseExact and stringifyExact are inverse on Values with bigint', (t) => {
  const value = { attrs: { a: { Int: 2n ** 63n - 1n }, b: { DateTime: -(2n ** 63n) }, c: { Float: 1.5 }, d: { Str: '{"Int":1}' } } };
  t.deepEqual(parseExact(stringifyExact(value)), value);
});

test('stringifyExact writes plain bodies as JSON.stringify does, and bigint, -0, typed arrays and raw JSON nested anywhere as exact JSON', (t) => {
  const plain = { top_k: 10, include_attributes: [], filter: { And: [{ Eq: ['c', { Str: 'x"y' }] }] }, scope: ['a', 'b'], exact: false, note: null };
  t.is(stringifyExact(plain).toString('utf8'), JSON.stringify(plain));
  const nested = (v: unknown) => ({ top_k: 3, deep: [{ x: v }] });
  t.is(stringifyExact(nested(2n ** 63n - 1n)).toString('utf8'), '{"top_k":3,"deep":[{"x":9223372036854775807}]}');
  t.is(stringifyExact(nested(-0)).toString('utf8'), '{"top_k":3,"deep":[{"x":-0.0}]}');
  t.is(stringifyExact(nested(Float32Array.from([0.5, 2]))).toString('utf8'), '{"top_k":3,"deep":[{"x":[0.5,2]}]}');
  t.is(stringifyExact(nested(new RawJson('{"Int":7}'))).toString('utf8'), '{"top_k":3,"deep":[{"x":{"Int":7}}]}');
  t.throws(() => stringifyExact(nested(Number.NaN)), { instanceOf: RangeError, message: /x must be a finite number/ });
  // Past the values it looks at, a body goes to the replacer, which writes it the same way.
  const long = { ids: Array.from({ length: 200 }, (_, i) => `id-${i}`), n: 2n };
  t.is(stringifyExact(long).toString('utf8'), `{"ids":${JSON.stringify(long.ids)},"n":2}`);
});
