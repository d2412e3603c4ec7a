// Shared pieces of the full-text tests: an independent English analyzer (tokens, lowercase,
// optional ASCII folding, max_token_len, Lucene's English stopwords, Porter2 from the `porter2`
// package), a BM25 oracle written from the formula and rules of docs/full-text.md, store builders
// and randomized corpora. Nothing here trusts the core's own numbers.
import { isTokenCodePoint } from '../filters/oracle';
import type { ExecutionContext } from 'ava';
import { stem as porter2 } from 'porter2';
import { type DecayRank, type FtsFieldEntry, type TextClause, type Value, Store } from '../../lib/index';
import { ranksBefore } from '../core/helpers';

export type { FtsFieldEntry, TextClause, SuggestRequest, SuggestResult, HybridSearchRequest, TextSearchRequest, DecayRank } from '../../lib/index';

/** One matched clause as explain reports it. */
export interface ClauseNote {
  field: string;
  score: number;
  expansion?: { matched: number; scored: number };
}

// ---- the analyzer -------------------------------------------------------------------------------

export const STOPWORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

const SPECIAL_FOLDS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i' };

/** ASCII folding of Latin letters (lowercase input): diacritics dropped, ligatures spelled out. */
export function fold(word: string): string {
  let out = '';
  for (const ch of word) {
    if (SPECIAL_FOLDS[ch]) out += SPECIAL_FOLDS[ch];
    else if (/\p{Script=Latin}/u.test(ch)) out += ch.normalize('NFD').replace(/\p{M}/gu, '');
    else out += ch;
  }
  return out;
}

export interface FieldOptions {
  field: string;
  k1: number;
  b: number;
  ascii_folding: boolean;
  max_token_len: number | null;
}

export function fieldOptions(entry: FtsFieldEntry): FieldOptions {
  const e = typeof entry === 'string' ? { field: entry } : entry;
  return { field: e.field, k1: e.k1 ?? 1.2, b: e.b ?? 0.75, ascii_folding: e.ascii_folding ?? false, max_token_len: e.max_token_len ?? null };
}

export interface Token {
  /** As spelled in the text. */
  word: string;
  /** Byte offsets into the UTF-8 text, [start, end). */
  start: number;
  end: number;
}

/** Maximal runs of token characters (the rule docs/full-text.md states), with their byte offsets. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let word = '';
  let start = 0;
  let at = 0;
  for (const ch of text) {
    if (isTokenCodePoint(ch.codePointAt(0)!)) {
      if (!word) start = at;
      word += ch;
    } else if (word) {
      out.push({ word, start, end: at });
      word = '';
    }
    at += Buffer.byteLength(ch);
  }
  if (word) out.push({ word, start, end: at });
  return out;
}

/** Lowercased (and folded when the field folds): the surface form of a word. */
export function surface(word: string, opts: Pick<FieldOptions, 'ascii_folding'>): string {
  const lower = word.toLowerCase();
  return opts.ascii_folding ? fold(lower) : lower;
}

/** The indexed term of one word, or null when it is dropped (too long, or a stopword). */
export function term(word: string, opts: Pick<FieldOptions, 'ascii_folding' | 'max_token_len'>): string | null {
  const s = surface(word, opts);
  if (opts.max_token_len !== null && [...s].length > opts.max_token_len) return null;
  if (STOPWORDS.has(s)) return null;
  return porter2(s);
}

export function analyze(text: string, opts: Pick<FieldOptions, 'ascii_folding' | 'max_token_len'>): string[] {
  return tokenize(text)
    .map((t) => term(t.word, opts))
    .filter((t): t is string => t !== null);
}

export { porter2 };

// ---- the corpus and the BM25 oracle -------------------------------------------------------------

export interface Doc {
  collection: string;
  id: string;
  attrs?: Record<string, Value>;
  vector?: number[];
}

/** A Str as it is, a List joined with single spaces; anything else is not indexed. */
export function fieldText(doc: Doc, field: string): string | null {
  const v = doc.attrs?.[field];
  if (v && typeof v === 'object' && 'Str' in v) return v.Str;
  if (v && typeof v === 'object' && 'List' in v) return v.List.join(' ');
  return null;
}

interface FieldIndex {
  opts: FieldOptions;
  /** Per document (key collection/id): term -> tf, and the document's length. */
  docs: Map<string, { tf: Map<string, number>; dl: number; surfaces: Set<string> }>;
  df: Map<string, number>;
  n: number;
  avgdl: number;
}

const key = (collection: string, id: string) => `${collection}\u0000${id}`;

/** The index of one collection's field, over the live documents that have an indexed token. */
export function indexField(docs: Doc[], collection: string, entry: FtsFieldEntry): FieldIndex {
  const opts = fieldOptions(entry);
  const out: FieldIndex = { opts, docs: new Map(), df: new Map(), n: 0, avgdl: 0 };
  let total = 0;
  for (const d of docs) {
    if (d.collection !== collection) continue;
    const text = fieldText(d, opts.field);
    if (text === null) continue;
    const tf = new Map<string, number>();
    const surfaces = new Set<string>();
    let dl = 0;
    for (const tok of tokenize(text)) {
      const t = term(tok.word, opts);
      if (t === null) continue;
      dl++;
      tf.set(t, (tf.get(t) ?? 0) + 1);
      surfaces.add(surface(tok.word, opts));
    }
    if (dl === 0) continue;
    out.docs.set(key(d.collection, d.id), { tf, dl, surfaces });
    for (const t of tf.keys()) out.df.set(t, (out.df.get(t) ?? 0) + 1);
    out.n++;
    total += dl;
  }
  out.avgdl = out.n ? total / out.n : 0;
  return out;
}

export const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * The terms of one clause in one collection's field: the distinct analyzed terms, and for a prefix
 * clause the expansion of the final token (its 256 commonest terms scored).
 */
export function clauseTerms(index: FieldIndex, clause: TextClause): { terms: string[]; expansion?: { matched: number; scored: number } } {
  const toks = tokenize(clause.query);
  if (!clause.prefix || toks.length === 0) return { terms: [...new Set(analyze(clause.query, index.opts))] };
  const earlier = toks
    .slice(0, -1)
    .map((t) => term(t.word, index.opts))
    .filter((t): t is string => t !== null);
  const p = surface(toks[toks.length - 1].word, index.opts);
  const expanded = new Set<string>();
  for (const t of index.df.keys()) if (t.startsWith(p)) expanded.add(t);
  for (const doc of index.docs.values()) for (const s of doc.surfaces) if (s.startsWith(p)) expanded.add(porter2(s));
  const ranked = [...expanded].sort((a, b) => (index.df.get(b) ?? 0) - (index.df.get(a) ?? 0));
  const scored = ranked.slice(0, 256);
  if (ranked.length > 256 && (index.df.get(ranked[255]) ?? 0) === (index.df.get(ranked[256]) ?? 0))
    throw new Error('oracle: the 256-term cap falls inside a df tie; choose a corpus without one');
  return { terms: [...new Set([...earlier, ...scored])], expansion: { matched: expanded.size, scored: scored.length } };
}

/** One clause's BM25 for one document, or null when the document holds none of its terms. */
export function clauseScore(index: FieldIndex, terms: string[], collection: string, id: string): number | null {
  const d = index.docs.get(key(collection, id));
  if (!d) return null;
  const { k1, b } = index.opts;
  let s = 0;
  let matched = false;
  for (const t of terms) {
    const tf = d.tf.get(t) ?? 0;
    if (!tf) continue;
    matched = true;
    s += (idf(index.n, index.df.get(t)!) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.dl) / index.avgdl));
  }
  return matched ? s : null;
}

export interface OracleText {
  clauses: TextClause[];
  combine?: 'Sum' | 'Max';
  scope?: string[];
  /** The filter, as a predicate the test writes by hand. */
  keep?: (d: Doc) => boolean;
  rank_by?: DecayRank;
  min_score?: number;
  limit_per?: { field: string; max: number };
}

export interface Scored {
  collection: string;
  id: string;
  score: number;
  clauses: ClauseNote[];
}

/** The whole ranking (not cut to a page) that /text-search must return pieces of. */
export function oracleText(docs: Doc[], schemas: Record<string, FtsFieldEntry[]>, q: OracleText): Scored[] {
  const collections = [...new Set(docs.map((d) => d.collection))].filter((c) => !q.scope?.length || q.scope.includes(c));
  const out: Scored[] = [];
  for (const c of collections) {
    const entries = schemas[c] ?? [];
    const perClause = q.clauses.map((clause) => {
      const entry = entries.find((e) => fieldOptions(e).field === clause.field);
      if (!entry) return null;
      const index = indexField(docs, c, entry);
      return { index, ...clauseTerms(index, clause) };
    });
    for (const d of docs) {
      if (d.collection !== c) continue;
      if (q.keep && !q.keep(d)) continue;
      const notes: ClauseNote[] = [];
      q.clauses.forEach((clause, i) => {
        const pc = perClause[i];
        if (!pc) return;
        const s = clauseScore(pc.index, pc.terms, c, d.id);
        if (s !== null) notes.push({ field: clause.field, score: s, ...(clause.prefix ? { expansion: pc.expansion } : {}) });
      });
      if (!notes.length) continue;
      let score = q.combine === 'Max' ? Math.max(...notes.map((n) => n.score)) : notes.reduce((a, n) => a + n.score, 0);
      if (q.rank_by) score -= decayPenalty(q.rank_by, d);
      if (q.min_score !== undefined && score < q.min_score) continue;
      out.push({ collection: c, id: d.id, score, clauses: notes });
    }
  }
  out.sort(ranksBefore);
  if (!q.limit_per) return out;
  const seen = new Map<string, number>();
  return out.filter((h) => {
    const d = docs.find((x) => x.collection === h.collection && x.id === h.id)!;
    const v = d.attrs?.[q.limit_per!.field];
    const k = v === undefined ? '<missing>' : JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x));
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return n <= q.limit_per!.max;
  });
}

/** rank_by Decay's penalty (the spec's formula; no count term). */
export function decayPenalty(r: DecayRank, d: Doc): number {
  const v = d.attrs?.[r.field];
  let factor = r.missing ?? 1;
  if (v && typeof v === 'object' && ('Int' in v || 'DateTime' in v)) {
    const ts = Number('Int' in v ? v.Int : (v as { DateTime: number | bigint }).DateTime);
    const age = Math.max(0, Number(r.origin) - ts);
    factor = (r.decay ?? 0.5) ** (age / (r.scale ?? 604_800_000));
  }
  return (r.lambda ?? 1) * (1 - factor);
}

// ---- comparing -----------------------------------------------------------------------------------

const close = (a: number, b: number, rel = 1e-4) => Math.abs(a - b) <= rel * Math.max(Math.abs(b), 1e-9);

/**
 * Asserts that `hits` is exactly the oracle's `expected` page: same length, scores within 1e-4
 * relative, the same (collection, id) at each position except across a near tie (the core scores in
 * f32), and the hits themselves in (score desc, collection, id) order.
 */
export function assertRanking(
  t: ExecutionContext,
  hits: { collection: string; id: string; score: number }[],
  expected: { collection: string; id: string; score: number }[],
  label = '',
): void {
  const where = (h: { collection: string; id: string }) => `${h.collection}/${h.id}`;
  const got = hits.map((h) => `${where(h)}=${h.score}`).join(' ');
  const want = expected.map((h) => `${where(h)}=${h.score}`).join(' ');
  if (hits.length !== expected.length) return void t.fail(`${label}: ${hits.length} hits, expected ${expected.length}\n got  ${got}\n want ${want}`);
  const oracle = new Map(expected.map((e) => [key(e.collection, e.id), e.score]));
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i];
    const e = expected[i];
    if (!close(h.score, e.score))
      return void t.fail(`${label}: position ${i} scores ${h.score} (${where(h)}), expected ${e.score} (${where(e)})\n got  ${got}\n want ${want}`);
    if (h.collection !== e.collection || h.id !== e.id) {
      const mine = oracle.get(key(h.collection, h.id));
      if (mine === undefined || !close(mine, e.score, 1e-5))
        return void t.fail(`${label}: position ${i} is ${where(h)}, expected ${where(e)}\n got  ${got}\n want ${want}`);
    }
    if (i > 0 && ranksBefore(hits[i - 1], h) > 0) return void t.fail(`${label}: positions ${i - 1} and ${i} are out of (score desc, collection, id) order`);
  }
  t.pass();
}

export function assertClose(t: ExecutionContext, got: number | undefined, want: number, label: string, rel = 1e-4): void {
  t.true(typeof got === 'number' && close(got, want, rel), `${label}: got ${got}, expected ${want}`);
}

export const ids = (hits: { id: string }[]) => hits.map((h) => h.id);
export const where = (hits: { collection: string; id: string }[]) => hits.map((h) => `${h.collection}/${h.id}`);

// ---- building stores -------------------------------------------------------------------------------

export const str = (s: string): Value => ({ Str: s });

/** Text-only records (no vector) from id -> attrs, in one collection. */
export function docs(collection: string, rows: Record<string, Record<string, Value>>): Doc[] {
  return Object.entries(rows).map(([id, attrs]) => ({ collection, id, attrs }));
}

/** Documents whose only attribute is `body`. */
export function bodies(collection: string, rows: Record<string, string>, field = 'body'): Doc[] {
  return Object.entries(rows).map(([id, text]) => ({ collection, id, attrs: { [field]: str(text) } }));
}

/** Upserts the documents, one batch per collection (vectors where the document has one). */
export async function write(store: Store, all: Doc[]): Promise<void> {
  for (const c of [...new Set(all.map((d) => d.collection))]) {
    const records = all
      .filter((d) => d.collection === c)
      .map((d) => ({ id: d.id, ...(d.vector ? { vector: d.vector } : {}), ...(d.attrs ? { attrs: d.attrs } : {}) }));
    await store.upsert(c, { records });
  }
}

/** An in-memory store (dimension 4 unless told) holding `all`, with `schemas` declared after the writes. */
export async function storeOf(all: Doc[], schemas: Record<string, FtsFieldEntry[]>, dimension = 4): Promise<Store> {
  const store = await Store.open({ inMemory: true, dimension });
  await write(store, all);
  for (const [c, fields] of Object.entries(schemas)) await store.setFtsSchema(c, fields);
  return store;
}

// ---- randomized corpora ------------------------------------------------------------------------------

/** Words with shared stems, stopwords, accents and shared prefixes, for randomized corpora. */
export const VOCAB = [
  'run',
  'runs',
  'running',
  'runner',
  'runners',
  'fox',
  'foxes',
  'lazy',
  'dog',
  'dogs',
  'quick',
  'quickly',
  'brown',
  'bear',
  'bears',
  'river',
  'rivers',
  'stone',
  'stones',
  'bridge',
  'market',
  'markets',
  'marketing',
  'generate',
  'generation',
  'general',
  'the',
  'and',
  'of',
  'a',
  'to',
  'café',
  'cafe',
  'naïve',
  'über',
  'ship',
  'shipping',
  'shipped',
  'shop',
  'shopping',
  'magnificent',
  'magnifier',
];

/** A random phrase of 1..max VOCAB words, sometimes capitalized, with mixed separators. */
export function phrase(rand: () => number, max: number): string {
  const n = 1 + Math.floor(rand() * max);
  const words = Array.from({ length: n }, () => {
    const w = VOCAB[Math.floor(rand() * VOCAB.length)];
    return rand() < 0.2 ? w[0].toUpperCase() + w.slice(1) : w;
  });
  return words.map((w, i) => (i === 0 ? w : [' ', ', ', ' - ', '  '][Math.floor(rand() * 4)] + w)).join('');
}

/** `n` documents over collections `colls`: a body phrase, usually a title, a group attribute. */
export function randomDocs(rand: () => number, n: number, colls: string[]): Doc[] {
  return Array.from({ length: n }, (_, i) => ({
    collection: colls[Math.floor(rand() * colls.length)],
    id: `r${String(i).padStart(3, '0')}`,
    attrs: {
      body: rand() < 0.1 ? { List: [phrase(rand, 4), phrase(rand, 4)] } : str(phrase(rand, 12)),
      ...(rand() < 0.8 ? { title: str(phrase(rand, 3)) } : {}),
      g: str(rand() < 0.5 ? 'x' : 'y'),
    },
  }));
}
