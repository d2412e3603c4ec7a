// Property test of the predicate language against an independent JS oracle (./oracle.ts): a few
// hundred seeded random records with typed attributes (Str from a small vocabulary incl. multi-word
// and multibyte text, Int incl. values beyond 2^53, Float incl. -0.0, Bool, DateTime, List, Null,
// and missing keys, each key sometimes holding another variant), and thousands of random filters
// (All/Any/Not nested over leaves of every variant, arguments drawn from the data so matches are
// common). /list must return exactly the oracle's records for every filter, in every storage mode:
//   1. no filter-index declaration, rows still in memory;
//   2. setFilterIndex + flush, so the sealed segment carries the indexes;
//   3. split: a sealed segment indexed by a declaration made after it was sealed, plus in-memory
//      rows, overwrites of sealed records and deletions (rule 5: an index changes speed only).
// Every tenth filter also runs through /search (all records have vectors).
import test, { type ExecutionContext } from 'ava';
import { type Filter, type Predicate, type RecordInput, type Value, Store } from '../../lib/index';
import { prng, randomVector, tempDir } from '../core/helpers';
import { type Attrs, globMatch, matches, rawTokens, regexMatch } from './oracle';
import { label } from './util';

const SEED = 20240601;
const N_RECORDS = 400;
const N_FILTERS = 3000;
const DIM = 4;
const COLLECTIONS = ['o', 'p'];
const KEYS = ['s', 't', 'n', 'f', 'b', 'd', 'l', 'x'];
const TEXT_KEYS = ['s', 't', 'l', 'x'];

const WORDS = [
  'apple',
  'Apple',
  'APPLE',
  'apples',
  'banana',
  'café',
  'Café',
  'CAFÉ',
  'cafe',
  'naïve',
  'über',
  'zebra',
  'B',
  'a',
  'ab',
  'run',
  'running',
  'Run',
  'quick',
  'brown',
  'fox',
  '日本語',
  '日本',
  'hello',
  'world',
  'e-mail',
  'email',
  'v2.0',
  "don't",
  'x1',
  '',
  'ｚｅｄ',
  '😀smile',
  'Zed',
];
const SEPS = [' ', ' ', ' ', '-', ', ', '. ', '/', '_', ' — ', '·'];
const INTS = [0n, 1n, -1n, 2n, 5n, 42n, -7n, 1000n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, 2n ** 63n - 2n, -(2n ** 63n)];
const FLOATS = [0, -0, 1, 1.5, -2.5, 0.1, 42, 1e300, -1e-300];
const DATES = [0n, 1n, -1n, 1_700_000_000_000n, 1_700_000_000_001n, 2n ** 62n];
const TYPES = ['Str', 'Int', 'Float', 'Bool', 'DateTime', 'List', 'Null'] as const;
const MAIN: Record<string, string | null> = { s: 'Str', t: 'Text', n: 'Int', f: 'Float', b: 'Bool', d: 'DateTime', l: 'List', x: null };

interface Rec {
  collection: string;
  id: string;
  vector: number[];
  attrs: Attrs;
}

class Gen {
  readonly rand: () => number;
  constructor(seed: number) {
    this.rand = prng(seed);
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.rand() * a.length)];
  }
  flipCase(s: string): string {
    return Array.from(s, (c) => (/[a-zA-Z]/.test(c) && this.chance(0.3) ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c)).join('');
  }
  text(): string {
    const n = this.int(1, 5);
    let s = this.pick(WORDS.filter((w) => w));
    for (let i = 1; i < n; i++) s += this.pick(SEPS) + this.pick(WORDS.filter((w) => w));
    return this.chance(0.2) ? `${s}!` : s;
  }
  value(type: string): Value {
    switch (type) {
      case 'Str':
        return { Str: this.chance(0.7) ? this.pick(WORDS) : this.text() };
      case 'Text':
        return { Str: this.text() };
      case 'Int':
        return { Int: this.chance(0.7) ? this.pick(INTS) : BigInt(this.int(-100, 100)) };
      case 'Float':
        return { Float: this.chance(0.7) ? this.pick(FLOATS) : Math.round(this.rand() * 20000 - 10000) / 100 };
      case 'Bool':
        return { Bool: this.chance(0.5) };
      case 'DateTime':
        return { DateTime: this.chance(0.7) ? this.pick(DATES) : BigInt(this.int(0, 1000)) };
      case 'List':
        return { List: Array.from({ length: this.int(0, 4) }, () => (this.chance(0.7) ? this.pick(WORDS) : this.text())) };
      default:
        return 'Null';
    }
  }
  attrs(): Attrs {
    const out: Attrs = {};
    for (const k of KEYS) {
      const r = this.rand();
      if (r < 0.15) continue; // missing
      out[k] = MAIN[k] === null || r < 0.3 ? this.value(this.pick(TYPES)) : this.value(MAIN[k]!);
    }
    return out;
  }
}

/** Builds random filters whose arguments come mostly from the data. */
class FilterGen extends Gen {
  private readonly pools = new Map<string, Value[]>();
  private readonly texts = new Map<string, string[]>();
  private readonly elements: string[] = [];

  constructor(seed: number, records: Rec[]) {
    super(seed);
    for (const k of KEYS) {
      this.pools.set(k, []);
      this.texts.set(k, []);
    }
    for (const r of records) {
      for (const [k, v] of Object.entries(r.attrs)) {
        this.pools.get(k)!.push(v);
        if (typeof v === 'object' && 'Str' in v) this.texts.get(k)!.push(v.Str);
        if (typeof v === 'object' && 'List' in v) {
          this.texts.get(k)!.push(...v.List);
          this.elements.push(...v.List);
        }
      }
    }
  }

  key(): string {
    return this.chance(0.04) ? 'zz' : this.pick(KEYS);
  }
  arg(key: string): Value {
    const pool = this.pools.get(key) ?? [];
    return pool.length && this.chance(0.8) ? this.pick(pool) : this.value(this.pick(TYPES));
  }
  textOf(key: string): string {
    const pool = this.texts.get(key) ?? [];
    return pool.length && this.chance(0.85) ? this.pick(pool) : this.chance(0.5) ? this.pick(WORDS) : this.text();
  }
  element(): Value {
    return { Str: this.elements.length && this.chance(0.85) ? this.pick(this.elements) : this.pick(WORDS) };
  }

  private letter(): string {
    return String.fromCharCode(97 + this.int(0, 25));
  }
  private letterClass(c: string): string {
    const lower = c.toLowerCase().charCodeAt(0);
    const lo = String.fromCharCode(Math.max(97, lower - this.int(0, 2)));
    const hi = String.fromCharCode(Math.min(122, lower + this.int(0, 2)));
    const cls = c === c.toUpperCase() ? `${lo.toUpperCase()}-${hi.toUpperCase()}` : `${lo}-${hi}`;
    return `[${cls}]`;
  }

  glob(s: string): string {
    const cps = Array.from(s);
    let out = this.chance(0.2) ? '*' : '';
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      const r = this.rand();
      if (r < 0.1) out += '?';
      else if (r < 0.18) {
        out += '*';
        i += this.int(0, 2);
      } else if (r < 0.23 && /[a-zA-Z]/.test(c)) out += this.letterClass(c);
      else if (r < 0.26) out += `[!${this.letter()}]`;
      else if (r < 0.28) out += '[éa-c]';
      else out += c;
    }
    return this.chance(0.2) ? `${out}*` : out;
  }

  regex(s: string): string {
    const esc = (c: string) => (c === '.' ? '\\.' : c);
    const cps = Array.from(s);
    let out = '';
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      const r = this.rand();
      if (r < 0.08) out += '.';
      else if (r < 0.15) {
        out += '.*';
        i += this.int(0, 2);
      } else if (r < 0.2 && /[a-zA-Z]/.test(c)) out += this.letterClass(c);
      else if (r < 0.23) out += `${esc(c)}?`;
      else if (r < 0.26) out += `(?:${esc(c)}|${this.letter()})`;
      else if (r < 0.28) out += `${esc(c)}+`;
      else out += esc(c);
    }
    if (this.chance(0.1)) out = `(?:${out}|${this.regex(this.textOf('s'))})`;
    return this.chance(0.25) ? `(?i)${this.flipCase(out)}` : out;
  }

  fuzzyText(s: string): string {
    const cps = Array.from(this.flipCase(s));
    for (let e = this.int(0, 3); e > 0; e--) {
      const at = this.int(0, Math.max(0, cps.length - 1));
      const op = this.int(0, 3);
      if (op === 0 || cps.length === 0) cps.splice(at, 0, this.pick(['a', 'x', 'é', ' ', 'Z']));
      else if (op === 1) cps.splice(at, 1);
      else if (op === 2) cps[at] = this.pick(['a', 'x', 'é', ' ', 'Z']);
      else if (at + 1 < cps.length) [cps[at], cps[at + 1]] = [cps[at + 1], cps[at]];
    }
    return cps.join('');
  }

  tokenQuery(s: string, mode: 'all' | 'any' | 'seq'): string {
    let toks = rawTokens(s);
    if (mode === 'seq') {
      const from = this.int(0, Math.max(0, toks.length - 1));
      toks = toks.slice(from, from + this.int(1, 3));
      if (toks.length > 1 && this.chance(0.2)) toks.reverse();
    } else {
      toks = toks.filter(() => this.chance(0.6));
      if (toks.length > 1 && this.chance(0.5)) toks.reverse();
    }
    if (this.chance(0.2)) toks.push(this.pick(WORDS.filter((w) => w)));
    return toks.map((x) => this.flipCase(x)).join(this.pick([' ', ', ', '-', '  ', '/']));
  }

  leaf(): Predicate {
    const key = this.key();
    const tkey = TEXT_KEYS.includes(key) && this.chance(0.8) ? key : this.key();
    switch (this.int(0, 17)) {
      case 0:
        return { Eq: [key, this.arg(key)] };
      case 1:
        return { Ne: [key, this.arg(key)] };
      case 2:
        return { In: [key, Array.from({ length: this.int(0, 4) }, () => this.arg(key))] };
      case 3:
        return { NotIn: [key, Array.from({ length: this.int(0, 3) }, () => this.arg(key))] };
      case 4:
        return { Lt: [key, this.arg(key)] };
      case 5:
        return { Le: [key, this.arg(key)] };
      case 6:
        return { Gt: [key, this.arg(key)] };
      case 7:
        return { Ge: [key, this.arg(key)] };
      case 8:
        return { Glob: [tkey, this.glob(this.textOf(tkey))] };
      case 9:
        return { IGlob: [tkey, this.glob(this.flipCase(this.textOf(tkey)))] };
      case 10: {
        for (;;) {
          const p = this.regex(this.textOf(tkey));
          try {
            regexMatch(p, '');
            return { Regex: [tkey, p] };
          } catch {
            // not valid JavaScript; draw another
          }
        }
      }
      case 11:
        return { Contains: [key, this.element()] };
      case 12:
        return { NotContains: [key, this.element()] };
      case 13:
        return { ContainsAny: [key, Array.from({ length: this.int(0, 3) }, () => this.element())] };
      case 14:
        return { Fuzzy: [tkey, this.fuzzyText(this.textOf(tkey)), this.pick([0, 0, 1, 1, 2, 2, 3, 4, 8])] };
      case 15:
        return { ContainsAllTokens: [tkey, this.tokenQuery(this.textOf(tkey), 'all')] };
      case 16:
        return { ContainsAnyToken: [tkey, this.tokenQuery(this.textOf(tkey), 'any')] };
      default:
        return { ContainsTokenSequence: [tkey, this.tokenQuery(this.textOf(tkey), 'seq')] };
    }
  }

  predicate(depth: number): Predicate {
    if (depth >= 3 || this.chance(0.55)) return this.leaf();
    const r = this.rand();
    if (r < 0.35) return { All: Array.from({ length: this.int(0, 3) }, () => this.predicate(depth + 1)) };
    if (r < 0.7) return { Any: Array.from({ length: this.int(0, 3) }, () => this.predicate(depth + 1)) };
    const child = this.predicate(depth + 1);
    return this.chance(0.2) ? ({ Not: [child] } as unknown as Predicate) : { Not: child };
  }

  filter(): Filter {
    return Array.from({ length: this.chance(0.05) ? 0 : this.int(1, 3) }, () => this.predicate(0));
  }

  /** A text leaf an index can serve (Fuzzy, Regex, the token family), on an indexed key. */
  textLeaf(): Predicate {
    for (;;) {
      const p = this.leaf();
      const variant = Object.keys(p)[0];
      if (['Fuzzy', 'Regex', 'ContainsAllTokens', 'ContainsAnyToken', 'ContainsTokenSequence'].includes(variant)) return p;
    }
  }

  /** One or two top-level text conjuncts (what an index narrows), sometimes with another predicate. */
  textFilter(): Filter {
    const f = Array.from({ length: this.int(1, 2) }, () => this.textLeaf());
    if (this.chance(0.4)) f.push(this.predicate(1));
    return f;
  }
}

// ---- the data and the filters, shared by every mode -------------------------------------------

interface Case {
  records: Rec[];
  filters: Filter[];
  expected: string[][];
}

function makeCase(seed: number, nRecords: number, nFilters: number, kind: 'any' | 'text'): Case {
  const g = new Gen(seed);
  const records: Rec[] = Array.from({ length: nRecords }, (_, i) => ({
    collection: COLLECTIONS[i % 5 === 0 ? 1 : 0],
    id: `r${i}`,
    vector: randomVector(g.rand, DIM),
    attrs: g.attrs(),
  }));
  const fg = new FilterGen(seed + 1, records);
  const filters = Array.from({ length: nFilters }, () => (kind === 'text' ? fg.textFilter() : fg.filter()));
  const expected = filters.map((f) =>
    records
      .filter((r) => matches(f, r.attrs))
      .map((r) => `${r.collection}/${r.id}`)
      .sort(),
  );
  return { records, filters, expected };
}

let mainCase: Case | undefined;
const MAIN_CASE = () => (mainCase ??= makeCase(SEED, N_RECORDS, N_FILTERS, 'any'));
const RECORDS_OF = () => MAIN_CASE().records;
const INDEX = ['s', 't', 'l', { field: 'x', trigrams: false }, { field: 'n', tokens: false }];

const input = (r: Rec, attrs = r.attrs): RecordInput => ({ id: r.id, vector: r.vector, attrs });

async function upsertAll(store: Store, recs: Rec[], attrsOf: (r: Rec) => Attrs = (r) => r.attrs): Promise<void> {
  for (const c of COLLECTIONS) {
    const mine = recs.filter((r) => r.collection === c);
    for (let i = 0; i < mine.length; i += 500) await store.upsert(c, { records: mine.slice(i, i + 500).map((r) => input(r, attrsOf(r))) });
  }
}

async function compareAll(t: ExecutionContext, store: Store, mode: string, c: Case = MAIN_CASE()): Promise<void> {
  const { records, filters, expected } = c;
  // The store holds exactly the final records.
  for (const coll of COLLECTIONS) {
    t.is((await store.records(coll)).length, records.filter((r) => r.collection === coll).length, `${mode}: records in ${coll}`);
  }
  const failures: string[] = [];
  let nonEmpty = 0;
  let partial = 0;
  for (let i = 0; i < filters.length; i++) {
    const filter = filters[i];
    const want = expected[i];
    const got = (await store.list({ filter, limit: 10000, include_attributes: [] })).map((h) => `${h.collection}/${h.id}`).sort();
    if (want.length) nonEmpty++;
    if (want.length && want.length < records.length) partial++;
    const report = (route: string, have: string[]) => {
      const wanted = new Set(want);
      const had = new Set(have);
      const extra = have.filter((x) => !wanted.has(x));
      const missing = want.filter((x) => !had.has(x));
      if (extra.length || missing.length) {
        const show = (ids: string[]) => ids.slice(0, 3).map((k) => `${k} ${label(records.find((r) => `${r.collection}/${r.id}` === k)!.attrs)}`);
        failures.push(
          `${mode} ${route} filter #${i} ${label(filter)}\n  extra ${extra.length}: ${show(extra).join('; ')}\n  missing ${missing.length}: ${show(missing).join('; ')}`,
        );
      }
    };
    report('/list', got);
    if (i % 10 === 0) {
      const hits = await store.search({ query: [1, 0.5, -0.5, 0.25], filter, top_k: 10000, include_attributes: [] });
      report('/search', hits.map((h) => `${h.collection}/${h.id}`).sort());
    }
  }
  // The generator must exercise the language, not just produce empty or full sets.
  t.true(nonEmpty > filters.length * 0.3, `${mode}: only ${nonEmpty} filters match anything`);
  t.true(partial > filters.length * 0.25, `${mode}: only ${partial} filters match a proper subset`);
  t.deepEqual(failures.slice(0, 8), [], `${mode}: ${failures.length} of ${filters.length} filters disagree with the oracle`);
}

test('the oracle itself: glob and regex helpers agree with hand-checked cases', (t) => {
  t.true(globMatch('caf?', 'café', false));
  t.false(globMatch('[!x]at', 'xat', false));
  t.true(globMatch('[A-C]AT', 'bat', true));
  t.false(globMatch('[!X]AT', 'xat', true));
  t.true(regexMatch('(?i)caf.', 'CAFÉ'));
  t.false(regexMatch('ap|bat', 'apple'));
});

test('every random filter equals the oracle: no filter-index declaration, rows in memory', async (t) => {
  const store = await Store.open({ path: tempDir('filters-prop1'), dimension: DIM });
  await upsertAll(store, RECORDS_OF());
  await compareAll(t, store, 'no index');
  await store.close();
});

test('every random filter equals the oracle: after setFilterIndex and flush (sealed segments carry the indexes)', async (t) => {
  const store = await Store.open({ path: tempDir('filters-prop2'), dimension: DIM });
  await upsertAll(store, RECORDS_OF());
  for (const c of COLLECTIONS) await store.setFilterIndex(c, INDEX);
  await store.flush();
  await compareAll(t, store, 'indexed+flushed');
  await store.close();
});

test('every random filter equals the oracle: a sealed indexed segment plus in-memory rows, overwrites and deletes', async (t) => {
  const store = await Store.open({ path: tempDir('filters-prop3'), dimension: DIM });
  const g = new Gen(SEED + 2);
  const RECORDS = RECORDS_OF();
  const cut = Math.floor(N_RECORDS * 0.6);
  const early = RECORDS.slice(0, cut);
  const overwritten = new Set(early.filter(() => g.chance(0.15)).map((r) => r.id));
  const decoys: Rec[] = Array.from({ length: 30 }, (_, i) => ({
    collection: COLLECTIONS[i % 2],
    id: `decoy${i}`,
    vector: randomVector(g.rand, DIM),
    attrs: g.attrs(),
  }));
  // Phase 1: the early records (the overwritten ones with other attrs) and decoys, sealed.
  await upsertAll(store, [...early, ...decoys], (r) => (overwritten.has(r.id) ? g.attrs() : r.attrs));
  await store.flush();
  // The declaration comes after the segment was sealed, so it must index existing documents.
  for (const c of COLLECTIONS) await store.setFilterIndex(c, INDEX);
  // Phase 2, in memory: the rest, the true attrs of the overwritten records, the decoys deleted.
  await upsertAll(store, [...RECORDS.slice(cut), ...early.filter((r) => overwritten.has(r.id))]);
  for (const c of COLLECTIONS) await store.delete(c, { ids: decoys.filter((d) => d.collection === c).map((d) => d.id) });
  await compareAll(t, store, 'split');
  await store.close();
});

test('every random text filter an index can serve equals the oracle: 3,000 records, indexed, sealed in two segments plus memory', async (t) => {
  const c = makeCase(SEED + 10, 3000, 500, 'text');
  const store = await Store.open({ path: tempDir('filters-prop4'), dimension: DIM });
  for (const coll of COLLECTIONS) await store.createCollection(coll);
  for (const coll of COLLECTIONS) await store.setFilterIndex(coll, INDEX);
  await upsertAll(store, c.records.slice(0, 1500));
  await store.flush();
  await upsertAll(store, c.records.slice(1500, 2700));
  await store.flush();
  await upsertAll(store, c.records.slice(2700));
  await compareAll(t, store, 'large indexed', c);
  await store.close();
});
