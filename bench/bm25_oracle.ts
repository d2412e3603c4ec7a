// An independent, exact BM25 for bench:text, written from docs/full-text.md alone (no engine code):
// the English analyzer (runs of Unicode letters (L*) and decimal digits (Nd), simple lowercasing of the Latin/Greek/Cyrillic
// blocks, Lucene's English stopwords, Porter2 via the `porter2` package, which agrees with
// libstemmer_c 2.2.0 on 115k words), and
//   score(d) = sum_t idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
//   idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5))
// over the distinct analyzed query terms; N, df and avgdl over the documents with at least one
// indexed token. Plain JS maps and arrays, f64 throughout; speed is not the point.
import { stem } from 'porter2';

export const STOPWORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

// Token characters as docs/full-text.md states them: ASCII letters and digits, and every code point
// from U+00C0 up outside the listed punctuation, symbol, private-use and emoji blocks.
const TOKEN =
  /[0-9A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u1FFF\u2C00-\u2DFF\u2E80-\u2FFF\u3040-\uD7FF\uF900-\uFDFF\uFE10-\uFE2F\uFE50-\uFEFF\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A\uFF66-\uFFEF\u{10000}-\u{1EFFF}\u{1FB00}-\u{DFFFF}]+/gu;
const ASCII = /^\p{ASCII}*$/u;

/** Code points in the BMP's Latin, Greek and Cyrillic blocks (the ones the analyzer lowercases). */
function caseBlock(cp: number): boolean {
  return (
    cp <= 0x024f || // Basic Latin .. Latin Extended-B
    (cp >= 0x0370 && cp <= 0x052f) || // Greek and Coptic, Cyrillic, Cyrillic Supplement
    (cp >= 0x1c80 && cp <= 0x1c8f) || // Cyrillic Extended-C
    (cp >= 0x1e00 && cp <= 0x1fff) || // Latin Extended Additional, Greek Extended
    (cp >= 0x2c60 && cp <= 0x2c7f) || // Latin Extended-C
    (cp >= 0x2de0 && cp <= 0x2dff) || // Cyrillic Extended-A
    (cp >= 0xa640 && cp <= 0xa69f) || // Cyrillic Extended-B
    (cp >= 0xa720 && cp <= 0xa7ff) || // Latin Extended-D
    (cp >= 0xff21 && cp <= 0xff5a) // fullwidth Latin letters
  );
}

/** Simple (one code point to one code point) lowercase mapping, per code point, no context. */
function lower(tok: string): string {
  if (ASCII.test(tok)) return tok.toLowerCase();
  let out = '';
  for (const ch of tok) {
    const cp = ch.codePointAt(0)!;
    if (!caseBlock(cp)) {
      out += ch;
      continue;
    }
    const l = ch.toLowerCase(); // per code point: no final-sigma context
    out += String.fromCodePoint(l.codePointAt(0)!); // U+0130 -> 'i' (its simple mapping), not "i\u0307"
  }
  return out;
}

export interface AnalyzerOptions {
  maxTokenLen?: number;
}

/** Per-process cache of surface token -> indexed term ('' for a stopword or a dropped token). */
const termCache = new Map<string, string>();

/** The analyzed terms of `text`, in order (stopwords and over-long tokens removed). */
export function analyze(text: string, o: AnalyzerOptions = {}): string[] {
  const out: string[] = [];
  const max = o.maxTokenLen ?? Infinity;
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0];
    let term = max === Infinity ? termCache.get(raw) : undefined;
    if (term === undefined) {
      const low = lower(raw);
      if ([...low].length > max || STOPWORDS.has(low)) term = '';
      else term = stem(low);
      if (max === Infinity) termCache.set(raw, term);
    }
    if (term) out.push(term);
  }
  return out;
}

export interface OracleResult {
  /** Matching documents (holding at least one query term), best first; ties by document order. */
  top: { doc: number; score: number }[];
  /** Every matching document's exact score. */
  scores: Map<number, number>;
  /** How many documents matched. */
  matched: number;
}

export class Bm25Oracle {
  private readonly termIds = new Map<string, number>();
  private readonly postDocs: number[][] = [];
  private readonly postTfs: number[][] = [];
  private readonly dl: Uint32Array;
  readonly n: number; // documents with at least one indexed token
  readonly avgdl: number;

  constructor(
    texts: string[],
    readonly k1 = 1.2,
    readonly b = 0.75,
    o: AnalyzerOptions = {},
  ) {
    this.dl = new Uint32Array(texts.length);
    const tf = new Map<number, number>();
    let total = 0;
    let n = 0;
    for (let d = 0; d < texts.length; d++) {
      const terms = analyze(texts[d], o);
      tf.clear();
      for (const t of terms) {
        let id = this.termIds.get(t);
        if (id === undefined) {
          id = this.postDocs.length;
          this.termIds.set(t, id);
          this.postDocs.push([]);
          this.postTfs.push([]);
        }
        tf.set(id, (tf.get(id) ?? 0) + 1);
      }
      for (const [id, c] of tf) {
        this.postDocs[id].push(d);
        this.postTfs[id].push(c);
      }
      this.dl[d] = terms.length;
      if (terms.length > 0) {
        n++;
        total += terms.length;
      }
    }
    this.n = n;
    this.avgdl = n > 0 ? total / n : 0;
  }

  get vocabulary(): number {
    return this.termIds.size;
  }

  /** Document frequency of an analyzed term. */
  df(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.postDocs[id].length;
  }

  search(query: string, k: number): OracleResult {
    const terms = [...new Set(analyze(query))];
    const scores = new Map<number, number>();
    const { k1, b, avgdl, n } = this;
    for (const t of terms) {
      const id = this.termIds.get(t);
      if (id === undefined) continue;
      const docs = this.postDocs[id];
      const tfs = this.postTfs[id];
      const df = docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i];
        const tf = tfs[i];
        const s = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.dl[d]) / avgdl));
        scores.set(d, (scores.get(d) ?? 0) + s);
      }
    }
    const all = [...scores].map(([doc, score]) => ({ doc, score }));
    all.sort((x, y) => y.score - x.score || x.doc - y.doc);
    return { top: all.slice(0, k), scores, matched: all.length };
  }
}

export interface Overlap {
  /** |engine top-k ∩ documents scoring at least the oracle's k-th score| / min(k, matched). */
  tie_aware: number;
  /** |engine top-k ∩ oracle top-k (ties broken by document order)| / min(k, matched). */
  strict: number;
}

/**
 * Overlap of an engine's top-k (document indices, best first) with the oracle's, or null when the
 * oracle matches nothing. Tie-aware: an engine hit counts when its exact score is within a relative
 * 1e-6 of the oracle's k-th score or above, so which of several equally scored documents fills the
 * last places does not count against anyone.
 */
export function overlapAt(k: number, oracle: OracleResult, engine: number[]): Overlap | null {
  const want = Math.min(k, oracle.matched);
  if (want === 0) return null;
  const kth = oracle.top[want - 1].score;
  const floor = kth - Math.max(1e-9, Math.abs(kth) * 1e-6);
  const seen = new Set<number>();
  const strictSet = new Set(oracle.top.slice(0, want).map((x) => x.doc));
  let tie = 0;
  let strict = 0;
  for (const d of engine.slice(0, k)) {
    if (d < 0 || seen.has(d)) continue;
    seen.add(d);
    const s = oracle.scores.get(d);
    if (s !== undefined && s >= floor) tie++;
    if (strictSet.has(d)) strict++;
  }
  return { tie_aware: Math.min(tie, want) / want, strict: strict / want };
}
