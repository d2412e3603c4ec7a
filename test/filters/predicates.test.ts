// The spec's "Filter and predicates" table and its five rules through the library: every variant
// on /list and on /search (the same set of records both ways), typed comparisons (Float vs Int,
// 0.0 vs -0.0, Int64 beyond 2^53, Str by bytes), patterns, containment, Fuzzy, the token family,
// All/Any/Not, validation before any row is read, and filters applied before scoring.
import test from 'ava';
import { type Filter, type Predicate, type Value, Store } from '../../lib/index';
import { type OracleRecord, assertMatchesOracle, oracleSearch, prng, randomVector, rejectsWith } from '../core/helpers';
import { expectMatches, label, listed, rawUpsert, storeWith, vec, without } from './util';

// ---- the typed fixture: one attribute `v` holding every variant -------------------------------

const STR = ['s-B', 's-a', 's-ab', 's-z', 's-e', 's-fw', 's-emoji'];
const INT = ['i-min', 'i-1', 'i-2p53', 'i-2p53p1', 'i-max1', 'i-max'];
const FLOAT = ['f-1', 'f-1.5', 'f-neg', 'f-pz', 'f-nz', 'f-big'];
const BOOL = ['b-t', 'b-f'];
const DT = ['d-1', 'd-big'];
const LIST = ['l-ab', 'l-ba', 'l-empty'];
const NUL = ['null'];
const PRESENT = [...STR, ...INT, ...FLOAT, ...BOOL, ...DT, ...LIST, ...NUL];
/** `missing` has another attribute but not `v`; `bare` has no attributes at all. */
const ALL = [...PRESENT, 'missing', 'bare'];

const TWO63 = 2n ** 63n;
const TWO53 = 2n ** 53n;

let typedStore: Promise<Store> | undefined;
function typed(): Promise<Store> {
  typedStore ??= (async () => {
    const store = await storeWith({
      's-B': { v: { Str: 'B' } },
      's-a': { v: { Str: 'a' } },
      's-ab': { v: { Str: 'ab' } },
      's-z': { v: { Str: 'z' } },
      's-e': { v: { Str: 'é' } },
      's-fw': { v: { Str: 'ｚ' } }, // U+FF5A: 3 UTF-8 bytes, sorts after é and before any 4-byte character
      's-emoji': { v: { Str: '😀' } }, // U+1F600: a surrogate pair in UTF-16, so JS string order differs
      'i-min': { v: { Int: -TWO63 } },
      'i-1': { v: { Int: 1n } },
      'i-2p53': { v: { Int: TWO53 } },
      'i-2p53p1': { v: { Int: TWO53 + 1n } },
      'i-max1': { v: { Int: TWO63 - 2n } },
      'i-max': { v: { Int: TWO63 - 1n } },
      'f-1': { v: { Float: 1 } },
      'f-1.5': { v: { Float: 1.5 } },
      'f-neg': { v: { Float: -2.5 } },
      'f-pz': { v: { Float: 0 } },
      'f-big': { v: { Float: 1e300 } },
      'b-t': { v: { Bool: true } },
      'b-f': { v: { Bool: false } },
      'd-1': { v: { DateTime: 1n } },
      'd-big': { v: { DateTime: 1_700_000_000_000n } },
      'l-ab': { v: { List: ['a', 'b'] } },
      'l-ba': { v: { List: ['b', 'a'] } },
      'l-empty': { v: { List: [] } },
      null: { v: 'Null' },
      missing: { other: { Str: 'a' } },
      bare: undefined,
    });
    // -0.0 written as raw JSON bytes, so no JS serializer can turn it into 0.
    await rawUpsert(store, 'c', `{"records":[{"id":"f-nz","vector":[${vec(99).join(',')}],"attrs":{"v":{"Float":-0.0}}}]}`);
    return store;
  })();
  return typedStore;
}

const eq = (v: Value): Predicate => ({ Eq: ['v', v] });

test('Eq: the attribute equals the value, variant and value both (Str, Int, Float, Bool, DateTime, List, Null)', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [eq({ Str: 'a' })], ['s-a']);
  await expectMatches(t, s, [eq({ Int: 1 })], ['i-1']);
  await expectMatches(t, s, [eq({ Float: 1.5 })], ['f-1.5']);
  await expectMatches(t, s, [eq({ Bool: true })], ['b-t']);
  await expectMatches(t, s, [eq({ Bool: false })], ['b-f']);
  await expectMatches(t, s, [eq({ DateTime: 1 })], ['d-1']);
  await expectMatches(t, s, [eq({ List: ['a', 'b'] })], ['l-ab']);
  await expectMatches(t, s, [eq({ List: [] })], ['l-empty']);
  await expectMatches(t, s, [eq('Null')], ['null']);
  await expectMatches(t, s, [{ Eq: ['other', { Str: 'a' }] }], ['missing']);
});

test('Float and Int are distinct types and never cross-compare (Eq, In, Ne, ranges)', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [eq({ Int: 1 })], ['i-1']); // not Float 1, Bool true or DateTime 1
  await expectMatches(t, s, [eq({ Float: 1 })], ['f-1']); // a whole number sent as Float stays Float
  await expectMatches(t, s, [{ In: ['v', [{ Float: 1 }]] }], ['f-1']);
  await expectMatches(t, s, [{ In: ['v', [{ Int: 1 }]] }], ['i-1']);
  await expectMatches(t, s, [{ Lt: ['v', { Float: 2 }] }], ['f-1', 'f-1.5', 'f-neg', 'f-pz', 'f-nz']);
  await expectMatches(t, s, [{ Lt: ['v', { Int: 2 }] }], ['i-min', 'i-1']);
  await expectMatches(t, s, [{ Ge: ['v', { Int: 0 }] }], ['i-1', 'i-2p53', 'i-2p53p1', 'i-max1', 'i-max']);
  await expectMatches(t, s, [{ Ne: ['v', { Float: 1 }] }], without(PRESENT, ['f-1'])); // Int 1 is "different"
});

test('Int equality and ranges are exact across 64 bits: 2^53 vs 2^53+1, 2^63-2 vs 2^63-1, -2^63', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [eq({ Int: TWO53 })], ['i-2p53']);
  await expectMatches(t, s, [eq({ Int: TWO53 + 1n })], ['i-2p53p1']);
  await expectMatches(t, s, [eq({ Int: TWO63 - 1n })], ['i-max']);
  await expectMatches(t, s, [{ Gt: ['v', { Int: TWO63 - 2n }] }], ['i-max']);
  await expectMatches(t, s, [{ Ge: ['v', { Int: TWO63 - 2n }] }], ['i-max1', 'i-max']);
  await expectMatches(t, s, [{ Lt: ['v', { Int: TWO63 - 1n }] }], without(INT, ['i-max']));
  await expectMatches(t, s, [{ Gt: ['v', { Int: TWO53 }] }], ['i-2p53p1', 'i-max1', 'i-max']);
  await expectMatches(t, s, [{ Le: ['v', { Int: -TWO63 }] }], ['i-min']);
  await expectMatches(t, s, [{ Lt: ['v', { Int: -TWO63 }] }], []);
  await expectMatches(t, s, [{ Ne: ['v', { Int: TWO63 - 2n }] }], without(PRESENT, ['i-max1']));
  // The same constants as raw digits in the request bytes.
  const raw = JSON.parse((await s.listJson(Buffer.from('{"limit":10000,"filter":[{"Gt":["v",{"Int":9223372036854775806}]}]}'))).toString('utf8')) as {
    id: string;
  }[];
  t.deepEqual(
    raw.map((h) => h.id),
    ['i-max'],
  );
});

test('0.0 equals -0.0 (the -0.0 stored from raw bytes): Eq, In, NotIn, Ne and ranges', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [eq({ Float: 0 })], ['f-pz', 'f-nz']);
  await expectMatches(t, s, [eq({ Float: -0 })], ['f-pz', 'f-nz']);
  await expectMatches(t, s, [{ In: ['v', [{ Float: -0 }]] }], ['f-pz', 'f-nz']);
  await expectMatches(t, s, [{ NotIn: ['v', [{ Float: 0 }]] }], without(PRESENT, ['f-pz', 'f-nz']));
  await expectMatches(t, s, [{ Ne: ['v', { Float: -0 }] }], without(PRESENT, ['f-pz', 'f-nz']));
  await expectMatches(t, s, [{ Lt: ['v', { Float: 0 }] }], ['f-neg']);
  await expectMatches(t, s, [{ Le: ['v', { Float: 0 }] }], ['f-neg', 'f-pz', 'f-nz']);
  await expectMatches(t, s, [{ Gt: ['v', { Float: -0 }] }], ['f-1', 'f-1.5', 'f-big']);
  await expectMatches(t, s, [{ Ge: ['v', { Float: -0 }] }], ['f-1', 'f-1.5', 'f-pz', 'f-nz', 'f-big']);
  const raw = JSON.parse((await s.listJson(Buffer.from('{"filter":[{"Eq":["v",{"Float":-0.0}]}]}'))).toString('utf8')) as { id: string }[];
  t.deepEqual(raw.map((h) => h.id).sort(), ['f-nz', 'f-pz']);
});

test('Str ranges compare bytes: B < a < ab < z < é < ｚ (U+FF5A) < 😀 (U+1F600)', async (t) => {
  const s = await typed();
  const range = (op: 'Lt' | 'Le' | 'Gt' | 'Ge', x: string) => [{ [op]: ['v', { Str: x }] } as Predicate];
  await expectMatches(t, s, range('Lt', 'a'), ['s-B']); // uppercase sorts before lowercase
  await expectMatches(t, s, range('Gt', 'Z'), ['s-a', 's-ab', 's-z', 's-e', 's-fw', 's-emoji']);
  await expectMatches(t, s, range('Gt', 'a'), ['s-ab', 's-z', 's-e', 's-fw', 's-emoji']); // a prefix sorts first
  await expectMatches(t, s, range('Le', 'z'), ['s-B', 's-a', 's-ab', 's-z']);
  await expectMatches(t, s, range('Gt', 'z'), ['s-e', 's-fw', 's-emoji']); // multibyte after ASCII
  await expectMatches(t, s, range('Gt', 'ｚ'), ['s-emoji']); // by UTF-16 code units this would be empty
  await expectMatches(t, s, range('Lt', '😀'), ['s-B', 's-a', 's-ab', 's-z', 's-e', 's-fw']);
  await expectMatches(t, s, range('Ge', ''), STR);
  await expectMatches(t, s, range('Lt', ''), []);
});

test('Bool ranges order false < true', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [{ Lt: ['v', { Bool: true }] }], ['b-f']);
  await expectMatches(t, s, [{ Le: ['v', { Bool: true }] }], ['b-f', 'b-t']);
  await expectMatches(t, s, [{ Gt: ['v', { Bool: false }] }], ['b-t']);
  await expectMatches(t, s, [{ Ge: ['v', { Bool: false }] }], ['b-f', 'b-t']);
  await expectMatches(t, s, [{ Lt: ['v', { Bool: false }] }], []);
  await expectMatches(t, s, [{ Gt: ['v', { Bool: true }] }], []);
});

test('DateTime ranges are numeric and never cross-compare with Int', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [{ Lt: ['v', { DateTime: 2 }] }], ['d-1']);
  await expectMatches(t, s, [{ Gt: ['v', { DateTime: 1 }] }], ['d-big']);
  await expectMatches(t, s, [{ Ge: ['v', { DateTime: 1 }] }], ['d-1', 'd-big']);
  await expectMatches(t, s, [{ Le: ['v', { DateTime: 1_699_999_999_999n }] }], ['d-1']);
  await expectMatches(t, s, [eq({ DateTime: 1_700_000_000_000n })], ['d-big']);
  await expectMatches(t, s, [{ Eq: ['v', { Int: 1_700_000_000_000n }] }], []);
});

test('Float ranges are numeric', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [{ Lt: ['v', { Float: -1 }] }], ['f-neg']);
  await expectMatches(t, s, [{ Gt: ['v', { Float: 1e299 }] }], ['f-big']);
  await expectMatches(t, s, [{ Le: ['v', { Float: 1 }] }], ['f-1', 'f-neg', 'f-pz', 'f-nz']);
  await expectMatches(t, s, [{ Ge: ['v', { Float: 1.25 }] }], ['f-1.5', 'f-big']);
});

test('ranges against Null or a List, and across types, never match', async (t) => {
  const s = await typed();
  for (const op of ['Lt', 'Le', 'Gt', 'Ge'] as const) {
    await expectMatches(t, s, [{ [op]: ['v', 'Null'] } as Predicate], []); // not even the Null record
    await expectMatches(t, s, [{ [op]: ['v', { List: ['a', 'b'] }] } as Predicate], []); // not even the equal List
    await expectMatches(t, s, [{ [op]: ['v', { List: [] }] } as Predicate], []);
  }
  // A Str bound reaches Str values only; a Bool bound Bool values only.
  await expectMatches(t, s, [{ Le: ['v', { Str: '\u{10FFFF}' }] }], STR);
  await expectMatches(t, s, [{ Ge: ['v', { Bool: false }] }], BOOL);
});

test('Ne: the attribute is present and different (any other variant counts as different)', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [{ Ne: ['v', { Str: 'a' }] }], without(PRESENT, ['s-a']));
  await expectMatches(t, s, [{ Ne: ['v', 'Null'] }], without(PRESENT, ['null']));
  await expectMatches(t, s, [{ Ne: ['v', { List: ['a', 'b'] }] }], without(PRESENT, ['l-ab'])); // ['b','a'] differs
  await expectMatches(t, s, [{ Ne: ['v', { Int: 1 }] }], without(PRESENT, ['i-1']));
});

test('In: one of the values; NotIn: present and none of them; empty sets', async (t) => {
  const s = await typed();
  const set: Value[] = [{ Str: 'a' }, { Int: 1 }, 'Null', { List: ['b', 'a'] }, { Str: 'not stored' }];
  await expectMatches(t, s, [{ In: ['v', set] }], ['s-a', 'i-1', 'null', 'l-ba']);
  await expectMatches(t, s, [{ NotIn: ['v', set] }], without(PRESENT, ['s-a', 'i-1', 'null', 'l-ba']));
  await expectMatches(t, s, [{ In: ['v', []] }], []);
  await expectMatches(t, s, [{ NotIn: ['v', []] }], PRESENT);
});

/** One leaf of every variant, with arguments broad enough to hold for many present values. */
function everyLeaf(key: string): Predicate[] {
  return [
    { Eq: [key, { Str: 'a' }] },
    { Ne: [key, { Str: 'zzz' }] },
    { In: [key, [{ Str: 'a' }, { Int: 1 }, 'Null']] },
    { NotIn: [key, [{ Str: 'zzz' }]] },
    { NotIn: [key, []] },
    { Lt: [key, { Str: '\u{10FFFF}' }] },
    { Le: [key, { Int: TWO63 - 1n }] },
    { Gt: [key, { Float: -1e308 }] },
    { Ge: [key, { Bool: false }] },
    { Glob: [key, '*'] },
    { IGlob: [key, '*'] },
    { Regex: [key, '.*'] },
    { Contains: [key, { Str: 'a' }] },
    { NotContains: [key, { Str: 'zzz' }] },
    { ContainsAny: [key, [{ Str: 'a' }, { Str: 'b' }]] },
    { Fuzzy: [key, '', 8] },
    { ContainsAllTokens: [key, 'a'] },
    { ContainsAnyToken: [key, 'a b'] },
    { ContainsTokenSequence: [key, 'a'] },
  ];
}

test('rule 1: a record lacking the key matches no leaf predicate, including Ne, NotIn, NotContains and ranges', async (t) => {
  const s = await typed();
  // On a key no record has, every leaf matches nothing.
  for (const leaf of everyLeaf('nokey')) await expectMatches(t, s, [leaf], []);
  // On `v`, the broad negative and range leaves hold for every present value they apply to, never
  // for `missing` (another key only) or `bare` (no attributes).
  await expectMatches(t, s, [{ Ne: ['v', { Str: 'zzz' }] }], PRESENT);
  await expectMatches(t, s, [{ NotIn: ['v', [{ Str: 'zzz' }]] }], PRESENT);
  await expectMatches(t, s, [{ NotIn: ['v', []] }], PRESENT);
  await expectMatches(t, s, [{ NotContains: ['v', { Str: 'zzz' }] }], LIST);
  await expectMatches(t, s, [{ Ge: ['v', { Int: -TWO63 }] }], INT);
  await expectMatches(t, s, [{ Le: ['v', { Float: 1e308 }] }], FLOAT);
  await expectMatches(t, s, [{ Glob: ['v', '*'] }], STR);
  await expectMatches(t, s, [{ Fuzzy: ['v', '', 8] }], [...STR, 'l-ab', 'l-ba']);
  for (const leaf of everyLeaf('v')) {
    const got = await listed(s, [leaf]);
    t.false(got.includes('missing') || got.includes('bare'), `${label(leaf)} matched a record without v`);
  }
});

test('rule 2: Not is a true complement; on a missing attribute Ne is false while Not of Eq is true', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [{ Not: eq({ Str: 'a' }) }], without(ALL, ['s-a'])); // includes missing and bare
  await expectMatches(t, s, [{ Ne: ['v', { Str: 'a' }] }], without(PRESENT, ['s-a']));
  await expectMatches(t, s, [{ Not: { Ne: ['v', { Str: 'a' }] } }], ['s-a', 'missing', 'bare']);
  // For a leaf of every variant (on a present key and on an absent one), F and Not F partition the records.
  for (const leaf of [...everyLeaf('v'), ...everyLeaf('nokey')]) {
    const yes = await listed(s, [leaf]);
    const no = await listed(s, [{ Not: leaf }]);
    t.deepEqual([...yes, ...no].sort(), [...ALL].sort(), `partition by ${label(leaf)}`);
    t.deepEqual(await listed(s, [{ Not: { Not: leaf } }]), yes, `double negation of ${label(leaf)}`);
  }
});

test('Not accepts a predicate object or a one-element array', async (t) => {
  const s = await typed();
  const p = eq({ Int: 1 });
  await expectMatches(t, s, [{ Not: [p] } as unknown as Predicate], without(ALL, ['i-1']));
  await expectMatches(t, s, [{ Not: p }], without(ALL, ['i-1']));
});

// ---- patterns ---------------------------------------------------------------------------------

const NAMES: Record<string, Record<string, Value>> = {
  'n-apple': { name: { Str: 'apple' } },
  'n-Apple': { name: { Str: 'Apple' } },
  'n-APPLE': { name: { Str: 'APPLE' } },
  'n-apply': { name: { Str: 'apply' } },
  'n-app': { name: { Str: 'app' } },
  'n-maple': { name: { Str: 'maple' } },
  'n-café': { name: { Str: 'café' } },
  'n-CAFÉ': { name: { Str: 'CAFÉ' } },
  'n-cafe': { name: { Str: 'cafe' } },
  'n-bat': { name: { Str: 'bat' } },
  'n-cat': { name: { Str: 'cat' } },
  'n-dat': { name: { Str: 'dat' } },
  'n-xat': { name: { Str: 'xat' } },
  'n-empty': { name: { Str: '' } },
  'n-jp': { name: { Str: '日本語' } },
  'n-list': { name: { List: ['apple'] } },
  'n-int': { name: { Int: 5 } },
  'n-null': { name: 'Null' },
  'n-missing': { other: { Str: 'apple' } },
};
const NAME_STRS = Object.keys(NAMES).filter((k) => typeof NAMES[k].name === 'object' && 'Str' in NAMES[k].name);
let namesStore: Promise<Store> | undefined;
const names = () => (namesStore ??= storeWith(NAMES));
const glob = (p: string): Filter => [{ Glob: ['name', p] }];
const iglob = (p: string): Filter => [{ IGlob: ['name', p] }];
const regex = (p: string): Filter => [{ Regex: ['name', p] }];

test('Glob matches the whole Str: * any run, ? one character, [a-c] ranges, [!x] negation', async (t) => {
  const s = await names();
  await expectMatches(t, s, glob('app'), ['n-app']);
  await expectMatches(t, s, glob('app*'), ['n-apple', 'n-apply', 'n-app']);
  await expectMatches(t, s, glob('*ple'), ['n-apple', 'n-Apple', 'n-maple']);
  await expectMatches(t, s, glob('a*e'), ['n-apple']);
  await expectMatches(t, s, glob('*a*'), ['n-apple', 'n-apply', 'n-app', 'n-maple', 'n-café', 'n-cafe', 'n-bat', 'n-cat', 'n-dat', 'n-xat']);
  await expectMatches(t, s, glob('*'), NAME_STRS); // every Str, the empty one too
  await expectMatches(t, s, glob(''), ['n-empty']);
  await expectMatches(t, s, glob('ap?le'), ['n-apple']);
  await expectMatches(t, s, glob('?at'), ['n-bat', 'n-cat', 'n-dat', 'n-xat']);
  await expectMatches(t, s, glob('[a-c]at'), ['n-bat', 'n-cat']);
  await expectMatches(t, s, glob('[!x]at'), ['n-bat', 'n-cat', 'n-dat']);
  await expectMatches(t, s, glob('[!b-c]at'), ['n-dat', 'n-xat']);
  await expectMatches(t, s, glob('Apple'), ['n-Apple']); // case-sensitive
});

test('Glob ? and [..] consume one character, not one byte (multibyte text)', async (t) => {
  const s = await names();
  await expectMatches(t, s, glob('caf?'), ['n-café', 'n-cafe']);
  await expectMatches(t, s, glob('???'), ['n-app', 'n-bat', 'n-cat', 'n-dat', 'n-xat', 'n-jp']);
  await expectMatches(t, s, glob('日?語'), ['n-jp']);
  await expectMatches(t, s, glob('caf[é]'), ['n-café']);
  await expectMatches(t, s, glob('caf[!e]'), ['n-café']);
});

test('IGlob ignores ASCII case only (É and é stay distinct)', async (t) => {
  const s = await names();
  await expectMatches(t, s, iglob('APP*'), ['n-apple', 'n-Apple', 'n-APPLE', 'n-apply', 'n-app']);
  await expectMatches(t, s, iglob('*PLE'), ['n-apple', 'n-Apple', 'n-APPLE', 'n-maple']);
  await expectMatches(t, s, iglob('café'), ['n-café']);
  await expectMatches(t, s, iglob('CAF?'), ['n-café', 'n-CAFÉ', 'n-cafe']);
  await expectMatches(t, s, iglob('[A-C]AT'), ['n-bat', 'n-cat']);
  await expectMatches(t, s, iglob('[!X]AT'), ['n-bat', 'n-cat', 'n-dat']);
});

test('Regex is anchored at both ends, alternation included', async (t) => {
  const s = await names();
  await expectMatches(t, s, regex('app'), ['n-app']);
  await expectMatches(t, s, regex('p'), []); // no substring search
  await expectMatches(t, s, regex('app.*'), ['n-apple', 'n-apply', 'n-app']);
  await expectMatches(t, s, regex('.*ple'), ['n-apple', 'n-Apple', 'n-maple']);
  await expectMatches(t, s, regex('ap|bat'), ['n-bat']); // ^(ap|bat)$, not ^ap|bat$
  await expectMatches(t, s, regex('[a-c]at'), ['n-bat', 'n-cat']);
  await expectMatches(t, s, regex(''), ['n-empty']);
  await expectMatches(t, s, regex('caf.'), ['n-café', 'n-cafe']); // . is one character
  await expectMatches(t, s, regex('.{3}'), ['n-app', 'n-bat', 'n-cat', 'n-dat', 'n-xat', 'n-jp']);
});

test('Regex is case-sensitive unless the pattern carries its own (?i)', async (t) => {
  const s = await names();
  await expectMatches(t, s, regex('APPLE'), ['n-APPLE']);
  await expectMatches(t, s, regex('apple'), ['n-apple']);
  await expectMatches(t, s, regex('(?i)apple'), ['n-apple', 'n-Apple', 'n-APPLE']);
  await expectMatches(t, s, regex('(?i)ap.*'), ['n-apple', 'n-Apple', 'n-APPLE', 'n-apply', 'n-app']);
});

test('patterns (Glob, IGlob, Regex) apply to Str attributes only: never to a List, Int or Null', async (t) => {
  const s = await names();
  await expectMatches(t, s, glob('apple'), ['n-apple']); // not n-list = List ['apple']
  await expectMatches(t, s, iglob('*'), NAME_STRS);
  await expectMatches(t, s, regex('.*'), NAME_STRS);
  await expectMatches(t, s, regex('5'), []);
  await expectMatches(t, s, glob('Null'), []);
});

test('Regex runs on a linear-time engine: catastrophic-backtracking patterns on a long string return quickly', async (t) => {
  const s = await storeWith({ long: { name: { Str: `${'a'.repeat(50_000)}!` } }, short: { name: { Str: 'aaaa' } } });
  for (const p of ['(a+)+$', '(a|aa)+', '(a*)*b', '(a|a)*!?x']) {
    const started = performance.now();
    const hits = await listed(s, regex(p));
    const ms = performance.now() - started;
    t.true(ms < 2000, `${p} took ${ms.toFixed(0)} ms`);
    t.deepEqual(hits, p === '(a|aa)+' || p === '(a+)+$' ? ['short'] : [], p);
  }
});

test('rule 4: an unparseable Regex is 400 naming the predicate, not an empty result', async (t) => {
  const s = await names();
  for (const p of ['(', '[a-', 'a{2,1}', '*a', '(?=a)a', '(a)\\1', '(?<!x)a']) {
    const e = await rejectsWith(t, s.list({ filter: regex(p) }), 400, p);
    t.regex(e.message, /Regex/, p);
    await rejectsWith(t, s.search({ query: [1, 0, 0, 0], filter: regex(p) }), 400, `search ${p}`);
  }
});

// ---- List containment -------------------------------------------------------------------------

const TAGS: Record<string, Record<string, Value>> = {
  't-rg': { tags: { List: ['red', 'green'] } },
  't-r': { tags: { List: ['red'] } },
  't-reddish': { tags: { List: ['reddish'] } },
  't-rgspace': { tags: { List: ['red green'] } },
  't-empty': { tags: { List: [] } },
  't-Red': { tags: { List: ['Red', 'blue'] } },
  't-str': { tags: { Str: 'red' } },
  't-null': { tags: 'Null' },
  't-missing': { other: { List: ['red'] } },
};

test('Contains: the attribute is a List holding the whole element (no substring, no case folding)', async (t) => {
  const s = await storeWith(TAGS);
  await expectMatches(t, s, [{ Contains: ['tags', { Str: 'red' }] }], ['t-rg', 't-r']);
  await expectMatches(t, s, [{ Contains: ['tags', { Str: 're' }] }], []);
  await expectMatches(t, s, [{ Contains: ['tags', { Str: 'red green' }] }], ['t-rgspace']);
  await expectMatches(t, s, [{ Contains: ['tags', { Str: 'blue' }] }], ['t-Red']);
});

test('NotContains: a present List not holding the element (not a Str, Null or missing attribute)', async (t) => {
  const s = await storeWith(TAGS);
  await expectMatches(t, s, [{ NotContains: ['tags', { Str: 'red' }] }], ['t-reddish', 't-rgspace', 't-empty', 't-Red']);
  await expectMatches(t, s, [{ Not: { Contains: ['tags', { Str: 'red' }] } }], ['t-reddish', 't-rgspace', 't-empty', 't-Red', 't-str', 't-null', 't-missing']);
});

test('ContainsAny: a List overlapping the set; an empty set overlaps nothing', async (t) => {
  const s = await storeWith(TAGS);
  await expectMatches(t, s, [{ ContainsAny: ['tags', [{ Str: 'green' }, { Str: 'blue' }]] }], ['t-rg', 't-Red']);
  await expectMatches(t, s, [{ ContainsAny: ['tags', [{ Str: 'red' }, { Str: 'Red' }]] }], ['t-rg', 't-r', 't-Red']);
  await expectMatches(t, s, [{ ContainsAny: ['tags', [{ Str: 'red green' }]] }], ['t-rgspace']);
  await expectMatches(t, s, [{ ContainsAny: ['tags', []] }], []);
});

// ---- Fuzzy ------------------------------------------------------------------------------------

const BASE = 'abcdefghijkl';
/** fz-d is BASE with its first d characters replaced by '#': exactly d edits away. */
const LADDER = Object.fromEntries(Array.from({ length: 10 }, (_, d) => [`fz-${d}`, { w: { Str: '#'.repeat(d) + BASE.slice(d) } as Value }]));

test('Fuzzy matches within N Levenshtein edits, for every budget from 0 to 8', async (t) => {
  const s = await storeWith(LADDER);
  for (let k = 0; k <= 8; k++) {
    await expectMatches(
      t,
      s,
      [{ Fuzzy: ['w', BASE, k] }],
      Array.from({ length: k + 1 }, (_, d) => `fz-${d}`),
    );
  }
});

test('rule 4: a Fuzzy budget above 8 is 400 naming the predicate, not clamped; other bad budgets too', async (t) => {
  const s = await storeWith(LADDER);
  for (const k of [9, 100]) {
    const e = await rejectsWith(t, s.list({ filter: [{ Fuzzy: ['w', BASE, k] }] }), 400, `budget ${k}`);
    t.regex(e.message, /Fuzzy/);
    await rejectsWith(t, s.search({ query: [1, 0, 0, 0], filter: [{ Fuzzy: ['w', BASE, k] }] }), 400, `search budget ${k}`);
  }
  for (const k of [-1, 1.5, '2', null]) {
    await rejectsWith(t, s.list({ filter: [{ Fuzzy: ['w', BASE, k as number] }] }), 400, `budget ${label(k)}`);
  }
});

const FUZZ: Record<string, Record<string, Value>> = {
  'x-tr': { w: { Str: 'abdc' } },
  'x-café': { w: { Str: 'café' } },
  'x-jp': { w: { Str: '日本' } },
  'x-HELLO': { w: { Str: 'HELLO' } },
  'x-École': { w: { Str: 'École' } },
  'x-applepie': { w: { Str: 'apple pie' } },
  'x-l1': { w: { List: ['kitten', 'dog'] } },
  'x-l2': { w: { List: ['kit', 'ten'] } },
  'x-int': { w: { Int: 5 } },
};

test('Fuzzy: a transposition costs 2 edits', async (t) => {
  const s = await storeWith(FUZZ);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'abcd', 1] }], []);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'abcd', 2] }], ['x-tr']);
});

test('Fuzzy counts characters, not bytes', async (t) => {
  const s = await storeWith(FUZZ);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'cafe', 1] }], ['x-café']); // é vs e: one substitution
  await expectMatches(t, s, [{ Fuzzy: ['w', 'cafe', 0] }], []);
  await expectMatches(t, s, [{ Fuzzy: ['w', '日本語', 1] }], ['x-jp']); // one deleted character (3 bytes)
  await expectMatches(t, s, [{ Fuzzy: ['w', '日', 1] }], ['x-jp']);
});

test('Fuzzy folds ASCII case on both sides and nothing else', async (t) => {
  const s = await storeWith(FUZZ);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'hello', 0] }], ['x-HELLO']);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'HeLlO', 0] }], ['x-HELLO']);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'ÉCOLE', 0] }], ['x-École']);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'école', 0] }], []); // É and é are not ASCII
  await expectMatches(t, s, [{ Fuzzy: ['w', 'école', 1] }], ['x-École']);
});

test('Fuzzy compares the whole value (insertions count), and reads a List element by element', async (t) => {
  const s = await storeWith(FUZZ);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'apple pie', 0] }], ['x-applepie']);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'apple', 1] }], []); // a word inside the value is not enough
  await expectMatches(t, s, [{ Fuzzy: ['w', 'apple pi', 1] }], ['x-applepie']); // one inserted character
  await expectMatches(t, s, [{ Fuzzy: ['w', 'apple p', 1] }], []);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'apple p', 2] }], ['x-applepie']);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'sitting', 2] }], []);
  await expectMatches(t, s, [{ Fuzzy: ['w', 'sitting', 3] }], ['x-l1']); // the element 'kitten'
  await expectMatches(t, s, [{ Fuzzy: ['w', 'kitten', 0] }], ['x-l1']); // 'kit','ten' are not joined
  await expectMatches(t, s, [{ Fuzzy: ['w', 'kit', 0] }], ['x-l2']);
  await expectMatches(t, s, [{ Fuzzy: ['w', '5', 0] }], []); // Int is not text
});

// ---- the token family -------------------------------------------------------------------------

const TEXT: Record<string, Record<string, Value>> = {
  'k-run': { t: { Str: 'I run daily' } },
  'k-running': { t: { Str: 'running late' } },
  'k-fox': { t: { Str: 'The quick brown fox' } },
  'k-email': { t: { Str: 'send an e-mail' } },
  'k-dont': { t: { Str: "don't stop" } },
  'k-ver': { t: { Str: 'v2.0 release' } },
  'k-café': { t: { Str: 'café au lait' } },
  'k-list': { t: { List: ['quick brown', 'fox'] } },
  'k-upper': { t: { Str: 'RUN-FAST' } },
  'k-aab': { t: { Str: 'x a a a b' } },
  'k-int': { t: { Int: 1 } },
  'k-missing': { other: { Str: 'run' } },
};
const all = (x: string): Filter => [{ ContainsAllTokens: ['t', x] }];
const any = (x: string): Filter => [{ ContainsAnyToken: ['t', x] }];
const seq = (x: string): Filter => [{ ContainsTokenSequence: ['t', x] }];

test('rule 3: tokens are whole words with no stemming: ContainsAllTokens run does not match running', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, all('run'), ['k-run', 'k-upper']);
  await expectMatches(t, s, all('running'), ['k-running']);
  await expectMatches(t, s, all('runn'), []);
  await expectMatches(t, s, all('i'), ['k-run']); // no stopword removal
  await expectMatches(t, s, any('a'), ['k-aab']);
});

test('rule 3: tokens are ASCII-folded on both sides; non-ASCII letters are token characters but not folded', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, all('Run'), ['k-run', 'k-upper']);
  await expectMatches(t, s, all('THE QUICK'), ['k-fox']);
  await expectMatches(t, s, all('café'), ['k-café']);
  await expectMatches(t, s, all('CAFé'), ['k-café']);
  await expectMatches(t, s, all('CAFÉ'), []);
  await expectMatches(t, s, all('cafe'), []);
});

test('ContainsAllTokens: every query token present, in any order', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, all('fox quick'), ['k-fox']);
  await expectMatches(t, s, all('quick fox the'), ['k-fox']);
  await expectMatches(t, s, all('quick fox cat'), []);
});

test('ContainsAnyToken: at least one query token present', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, any('fox cat'), ['k-fox', 'k-list']);
  await expectMatches(t, s, any('cat dog'), []);
  await expectMatches(t, s, any('late daily'), ['k-run', 'k-running']);
});

test('ContainsTokenSequence: tokens consecutive and in order', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, seq('quick brown'), ['k-fox', 'k-list']);
  await expectMatches(t, s, seq('brown quick'), []);
  await expectMatches(t, s, seq('quick fox'), []); // not consecutive
  await expectMatches(t, s, seq('the quick brown fox'), ['k-fox']);
  await expectMatches(t, s, seq('a a b'), ['k-aab']); // overlapping partial match restarts correctly
  await expectMatches(t, s, seq('a b a'), []);
});

test('rule 3: maximal alphanumeric runs, so punctuation splits tokens in the text and in the query', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, seq('e mail'), ['k-email']);
  await expectMatches(t, s, all('email'), []);
  await expectMatches(t, s, all('mail!'), ['k-email']);
  await expectMatches(t, s, all("don't"), ['k-dont']);
  await expectMatches(t, s, all('t'), ['k-dont']);
  await expectMatches(t, s, seq('run_fast'), ['k-upper']);
  await expectMatches(t, s, all('v2'), ['k-ver']); // letters and digits form one run
  await expectMatches(t, s, all('2'), []);
  await expectMatches(t, s, any('0'), ['k-ver']);
});

test('rule 3: over a List the token predicates match when any one element matches (elements are not joined)', async (t) => {
  const s = await storeWith(TEXT);
  await expectMatches(t, s, seq('brown fox'), ['k-fox']); // spans two elements of k-list
  await expectMatches(t, s, all('quick fox'), ['k-fox']); // no single element of k-list has both
  await expectMatches(t, s, all('fox'), ['k-fox', 'k-list']);
  await expectMatches(t, s, all('brown quick'), ['k-fox', 'k-list']);
  await expectMatches(t, s, any('1'), []); // an Int is not text
});

// ---- groups -----------------------------------------------------------------------------------

test('All and Any: an empty All holds, an empty Any does not; an empty filter matches everything', async (t) => {
  const s = await typed();
  await expectMatches(t, s, [], ALL);
  await expectMatches(t, s, [{ All: [] }], ALL);
  await expectMatches(t, s, [{ Any: [] }], []);
  await expectMatches(t, s, [{ Not: { Any: [] } }], ALL);
  await expectMatches(t, s, [{ Not: { All: [] } }], []);
  await expectMatches(t, s, [{ All: [] }, { Any: [] }], []);
});

test('the filter array is AND-combined, the same as one All', async (t) => {
  const s = await typed();
  const both: Filter = [{ Ge: ['v', { Int: 0 }] }, { Lt: ['v', { Int: TWO53 + 1n }] }];
  await expectMatches(t, s, both, ['i-1', 'i-2p53']);
  await expectMatches(t, s, [{ All: both }], ['i-1', 'i-2p53']);
  await expectMatches(t, s, [{ Any: both }], INT);
});

test('nested groups evaluate by the table: Any of All, Not of Any, ten levels of Not', async (t) => {
  const s = await typed();
  const f: Filter = [
    {
      Any: [
        { All: [{ In: ['v', [{ Str: 'a' }, { Int: 1 }]] }, { Not: eq({ Int: 1 }) }] },
        { All: [{ Gt: ['v', { Int: TWO53 }] }, { Not: { Any: [eq({ Int: TWO63 - 1n }), eq({ Int: TWO63 - 2n })] } }] },
        { Not: { Any: [{ Eq: ['other', { Str: 'a' }] }, { Ne: ['v', { Str: 'zzz' }] }] } },
      ],
    },
  ];
  await expectMatches(t, s, f, ['s-a', 'i-2p53p1', 'bare']);
  let deep: Predicate = eq({ Str: 'a' });
  for (let i = 0; i < 10; i++) deep = { Not: deep };
  await expectMatches(t, s, [deep], ['s-a']);
  await expectMatches(t, s, [{ Not: deep }], without(ALL, ['s-a']));
});

// ---- validation -------------------------------------------------------------------------------

const p = eq({ Str: 'a' });
const MALFORMED: [string, unknown][] = [
  ['a filter that is an object, not an array', { Eq: ['v', { Str: 'a' }] }],
  ['a filter that is a string', 'Eq'],
  ['an unknown variant', [{ Equals: ['v', { Str: 'a' }] }]],
  ['a predicate object with two keys', [{ Eq: ['v', { Str: 'a' }], Ne: ['v', { Str: 'b' }] }]],
  ['an empty predicate object', [{}]],
  ['a predicate written as an array', [['Eq', 'v', { Str: 'a' }]]],
  ['Eq with one argument', [{ Eq: ['v'] }]],
  ['Eq with three arguments', [{ Eq: ['v', { Str: 'a' }, { Str: 'b' }] }]],
  ['Eq with arguments that are not an array', [{ Eq: { key: 'v' } }]],
  ['a key that is not a string', [{ Eq: [1, { Str: 'a' }] }]],
  ['a bare string Value other than Null', [{ Eq: ['v', 'a'] }]],
  ['an unknown Value variant', [{ Eq: ['v', { Text: 'a' }] }]],
  ['a Value object with two variants', [{ Eq: ['v', { Str: 'a', Int: 1 }] }]],
  ['Str holding a number', [{ Eq: ['v', { Str: 1 }] }]],
  ['Int holding a fraction', [{ Lt: ['v', { Int: 1.5 }] }]],
  ['List holding a number', [{ Eq: ['v', { List: [1] }] }]],
  ['In without a Value array', [{ In: ['v', { Str: 'a' }] }]],
  ['NotIn with a bad Value inside', [{ NotIn: ['v', [{ Str: 'a' }, 7]] }]],
  ['Glob with a pattern that is not a string', [{ Glob: ['v', 1] }]],
  ['Regex that does not parse', [{ Regex: ['v', '('] }]],
  ['Fuzzy without a budget', [{ Fuzzy: ['v', 'a'] }]],
  ['Fuzzy with budget 9', [{ Fuzzy: ['v', 'a', 9] }]],
  ['Fuzzy with a text that is not a string', [{ Fuzzy: ['v', 5, 1] }]],
  ['a token predicate whose text is an array', [{ ContainsAllTokens: ['v', ['a']] }]],
  ['All that is not an array', [{ All: p }]],
  ['Any holding a number', [{ Any: [1] }]],
  ['Not of an empty array', [{ Not: [] }]],
  ['Not of two predicates', [{ Not: [p, p] }]],
  ['Not of a number', [{ Not: 3 }]],
  ['a bad leaf nested four levels down', [{ All: [{ Any: [{ Not: { All: [{ Fuzzy: ['v', 'a', 9] }] } }] }] }]],
  ['a bad leaf after an Any branch that already holds', [{ Any: [{ All: [] }, { Regex: ['v', '[a-'] }] }]],
  ['a bad leaf after a predicate that already fails', [{ Any: [] }, { Regex: ['v', '('] }]],
];

test('rule 4: malformed filters are 400 on /list, /search, /aggregate and delete, and nothing changes', async (t) => {
  const s = await storeWith({ a: { v: { Str: 'a' } }, b: { v: { Str: 'b' } }, c: undefined });
  const version = s.commitVersion();
  for (const [what, filter] of MALFORMED) {
    const f = filter as Filter;
    await rejectsWith(t, s.list({ filter: f }), 400, `list: ${what}`);
    await rejectsWith(t, s.search({ query: [1, 0, 0, 0], filter: f }), 400, `search: ${what}`);
    await rejectsWith(t, s.aggregate({ filter: f }), 400, `aggregate: ${what}`);
    await rejectsWith(t, s.delete('c', { filter: f }), 400, `delete: ${what}`);
  }
  t.is(s.commitVersion(), version);
  t.deepEqual((await s.records('c')).map((r) => r.id).sort(), ['a', 'b', 'c']);
});

test('rule 4: an Int beyond 64 bits in a filter is 400', async (t) => {
  const s = await storeWith({ a: { v: { Int: 1 } } });
  await rejectsWith(t, s.listJson(Buffer.from('{"filter":[{"Eq":["v",{"Int":9223372036854775808}]}]}')), 400);
  await rejectsWith(t, s.listJson(Buffer.from('{"filter":[{"Lt":["v",{"Int":-9223372036854775809}]}]}')), 400);
});

test('rule 4: validation happens before any row is read: 400 on an empty store and on a scope of missing collections', async (t) => {
  const empty = await Store.open({ inMemory: true, dimension: 4 });
  const bad: Filter = [{ Fuzzy: ['v', 'a', 9] }];
  await rejectsWith(t, empty.list({ filter: bad }), 400, 'empty store list');
  await rejectsWith(t, empty.search({ query: [1, 0, 0, 0], filter: bad }), 400, 'empty store search');
  await rejectsWith(t, empty.aggregate({ filter: bad }), 400, 'empty store aggregate');
  const s = await storeWith({ a: { v: { Str: 'a' } } });
  await rejectsWith(t, s.list({ scope: ['nope'], filter: [{ Regex: ['v', '('] }] }), 400, 'missing scope');
  await rejectsWith(t, s.list({ filter: [{ Eq: ['nokey', 'bad'] }] as unknown as Filter }), 400, 'a key no record has');
});

// ---- filters before scoring -------------------------------------------------------------------

test('filters apply before scoring: a filtered search returns the top-k among matching records only (oracle)', async (t) => {
  const rand = prng(4242);
  const dim = 8;
  const store = await Store.open({ inMemory: true, dimension: dim });
  const records: (OracleRecord & { g: number; name: string })[] = [];
  for (let i = 0; i < 600; i++) {
    records.push({ collection: i % 3 === 0 ? 'a' : 'b', id: `r${i}`, vector: randomVector(rand, dim), g: i % 10, name: ['red', 'green', 'blue'][(i % 7) % 3] });
  }
  for (const c of ['a', 'b']) {
    await store.upsert(c, {
      records: records.filter((r) => r.collection === c).map((r) => ({ id: r.id, vector: r.vector!, attrs: { g: { Int: r.g }, name: { Str: r.name } } })),
    });
  }
  const cases: [Filter, (r: (typeof records)[number]) => boolean][] = [
    [[{ Eq: ['g', { Int: 3 }] }], (r) => r.g === 3],
    [[{ Ge: ['g', { Int: 8 }] }, { Eq: ['name', { Str: 'red' }] }], (r) => r.g >= 8 && r.name === 'red'],
    [[{ Not: { In: ['g', [{ Int: 0 }, { Int: 1 }, { Int: 2 }]] } }], (r) => r.g > 2],
    [[{ Any: [{ Eq: ['g', { Int: 9 }] }, { Glob: ['name', 'bl*'] }] }], (r) => r.g === 9 || r.name === 'blue'],
  ];
  for (let q = 0; q < 6; q++) {
    const query = randomVector(rand, dim);
    for (const [filter, keep] of cases) {
      for (const top_k of [1, 10, 50, 1000]) {
        const expected = oracleSearch(records.filter(keep), 'Cosine', { query, top_k });
        assertMatchesOracle(t, await store.search({ query, filter, top_k }), expected, 1e-4, `q${q} ${label(filter)} top_k ${top_k}`);
      }
      const scoped = oracleSearch(
        records.filter((r) => r.collection === 'a' && keep(r)),
        'Cosine',
        { query, top_k: 10, offset: 3 },
      );
      assertMatchesOracle(t, await store.search({ query, filter, scope: ['a'], top_k: 10, offset: 3 }), scoped, 1e-4, `q${q} scope a offset 3`);
    }
  }
});
