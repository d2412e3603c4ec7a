// An independent evaluator of the spec's predicate semantics ("Filter and predicates", rules 1-3),
// written from the spec text and the decisions recorded for the core, not from the core's code:
//  - a leaf never matches a missing key; Not is a true complement;
//  - Eq/Ne/In/NotIn compare variant and value (Float 0.0 == -0.0; List element-wise; Null == Null);
//  - ranges only within one orderable variant: Int/DateTime numerically (bigint), Float numerically,
//    Str by UTF-8 bytes, Bool false < true; Null and List never order;
//  - Glob/IGlob/Regex on Str only; ? and [..] take one code point; IGlob folds ASCII case only;
//  - Contains/NotContains/ContainsAny on whole List elements;
//  - Fuzzy: Levenshtein over code points after ASCII lowercasing, on a Str or any List element;
//  - tokens: maximal runs of ASCII letters/digits or non-ASCII letters (the core's rule: code
//    points >= U+00C0 except U+00D7, U+00F7 and a few punctuation blocks), ASCII-lowercased.
import type { Predicate, Value } from '../../lib/index';

export type Attrs = Record<string, Value>;

const tagOf = (v: Value): string => (v === 'Null' ? 'Null' : Object.keys(v)[0]);
// biome-ignore lint/suspicious/noExplicitAny: a string, number, bigint, boolean or list; each predicate reads the kind it expects
const payload = (v: Value): any => (v === 'Null' ? null : (v as any)[tagOf(v)]);
const big = (x: bigint | number): bigint => (typeof x === 'bigint' ? x : BigInt(x));

export function valuesEqual(a: Value, b: Value): boolean {
  const ta = tagOf(a);
  if (ta !== tagOf(b)) return false;
  const x = payload(a);
  const y = payload(b);
  switch (ta) {
    case 'Null':
      return true;
    case 'Int':
    case 'DateTime':
      return big(x) === big(y);
    case 'Float':
      return x === y; // 0 === -0; NaN !== NaN
    case 'List':
      return x.length === y.length && x.every((e: string, i: number) => e === y[i]);
    default:
      return x === y;
  }
}

/** Three-way order, or null when the pair does not order (different variants, Null, List, NaN). */
export function order(a: Value, b: Value): number | null {
  const ta = tagOf(a);
  if (ta !== tagOf(b)) return null;
  const x = payload(a);
  const y = payload(b);
  switch (ta) {
    case 'Int':
    case 'DateTime': {
      const p = big(x);
      const q = big(y);
      return p < q ? -1 : p > q ? 1 : 0;
    }
    case 'Float':
      if (Number.isNaN(x) || Number.isNaN(y)) return null;
      return x < y ? -1 : x > y ? 1 : 0;
    case 'Bool':
      return Number(x) - Number(y);
    case 'Str':
      return Math.sign(Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8')));
    default:
      return null;
  }
}

const lowerAscii = (cp: number) => (cp >= 65 && cp <= 90 ? cp + 32 : cp);
const upperAscii = (cp: number) => (cp >= 97 && cp <= 122 ? cp - 32 : cp);
const codePoints = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0)!);

type GlobOp = { kind: 'lit'; cp: number } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; neg: boolean; ranges: [number, number][] };

function parseGlob(pattern: string): GlobOp[] {
  const p = codePoints(pattern);
  const ops: GlobOp[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === 42) ops.push({ kind: 'star' });
    else if (c === 63) ops.push({ kind: 'any' });
    else if (c === 92 && i + 1 < p.length) ops.push({ kind: 'lit', cp: p[++i] });
    else if (c === 91) {
      let j = i + 1;
      let neg = false;
      if (p[j] === 33 || p[j] === 94) {
        neg = true;
        j++;
      }
      const ranges: [number, number][] = [];
      let first = true;
      while (j < p.length && (first || p[j] !== 93)) {
        first = false;
        let lo = p[j++];
        if (lo === 92 && j < p.length) lo = p[j++];
        let hi = lo;
        if (p[j] === 45 && j + 1 < p.length && p[j + 1] !== 93) {
          hi = p[j + 1];
          j += 2;
          if (hi === 92 && j < p.length) hi = p[j++];
        }
        ranges.push([lo, hi]);
      }
      if (j >= p.length) throw new Error(`unclosed [ in ${pattern}`); // the generator never makes these
      ops.push({ kind: 'class', neg, ranges });
      i = j;
    } else ops.push({ kind: 'lit', cp: c });
  }
  return ops;
}

export function globMatch(pattern: string, text: string, ignoreCase: boolean): boolean {
  const ops = parseGlob(pattern);
  const s = codePoints(text);
  const inClass = (op: Extract<GlobOp, { kind: 'class' }>, cp: number) => op.ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
  const one = (op: GlobOp, cp: number): boolean => {
    if (op.kind === 'any') return true;
    if (op.kind === 'lit') return ignoreCase ? lowerAscii(op.cp) === lowerAscii(cp) : op.cp === cp;
    if (op.kind === 'class') {
      const variants = ignoreCase ? [cp, lowerAscii(cp), upperAscii(cp)] : [cp];
      const hit = variants.some((v) => inClass(op, v));
      return op.neg ? !hit : hit;
    }
    return false;
  };
  // dp[i][j]: ops[i..] matches s[j..]
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (s.length + 1) + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let r: boolean;
    if (i === ops.length) r = j === s.length;
    else if (ops[i].kind === 'star') r = go(i + 1, j) || (j < s.length && go(i, j + 1));
    else r = j < s.length && one(ops[i], s[j]) && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

/**
 * Regex as JavaScript runs it, anchored at both ends, in Unicode mode; a leading (?i) becomes the
 * `i` flag. The property test only generates patterns whose meaning RE2 and JavaScript share.
 */
export function regexMatch(pattern: string, text: string): boolean {
  let flags = 'u';
  let p = pattern;
  if (p.startsWith('(?i)')) {
    flags += 'i';
    p = p.slice(4);
  }
  return new RegExp(`^(?:${p})$`, flags).test(text);
}

export function levenshtein(a: string, b: string): number {
  const x = codePoints(a).map(lowerAscii);
  const y = codePoints(b).map(lowerAscii);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length];
}

/** The core's token characters (native/include/tessera/text_match.h), written out independently. */
export function isTokenCodePoint(cp: number): boolean {
  if (cp < 0x80) return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
  if (cp < 0xc0 || cp === 0xd7 || cp === 0xf7) return false;
  const excluded = [
    [0x2000, 0x2bff],
    [0x2e00, 0x2e7f],
    [0x3000, 0x303f],
    [0xd800, 0xf8ff],
    [0xfe00, 0xfe0f],
    [0xfe30, 0xfe4f],
    [0xff00, 0xff0f],
    [0xff1a, 0xff20],
    [0xff3b, 0xff40],
    [0xff5b, 0xff65],
    [0xfff0, 0xffff],
    [0x1f000, 0x1faff],
    [0xe0000, 0x10ffff],
  ];
  return !excluded.some(([lo, hi]) => cp >= lo && cp <= hi);
}

export function tokens(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of text) {
    if (isTokenCodePoint(ch.codePointAt(0)!)) cur += ch;
    else if (cur) {
      out.push(cur);
      cur = '';
    }
  }
  if (cur) out.push(cur);
  return out.map((t) => t.replace(/[A-Z]/g, (c) => c.toLowerCase()));
}

function hasSequence(hay: string[], needle: string[]): boolean {
  for (let i = 0; i + needle.length <= hay.length; i++) if (needle.every((t, k) => hay[i + k] === t)) return true;
  return false;
}

/** The text group reads a Str, or each List element (any element matching). */
function textTest(v: Value, test: (s: string) => boolean): boolean {
  const t = tagOf(v);
  if (t === 'Str') return test(payload(v));
  if (t === 'List') return (payload(v) as string[]).some(test);
  return false;
}

const isStr = (v: Value) => tagOf(v) === 'Str';
const isList = (v: Value) => tagOf(v) === 'List';
const elementOf = (v: Value): string => (v as { Str: string }).Str;

export function evaluate(p: Predicate, attrs: Attrs): boolean {
  // biome-ignore lint/suspicious/noExplicitAny: every predicate variant has its own argument shape
  const [variant, args] = Object.entries(p)[0] as [string, any];
  if (variant === 'All') return (args as Predicate[]).every((c) => evaluate(c, attrs));
  if (variant === 'Any') return (args as Predicate[]).some((c) => evaluate(c, attrs));
  if (variant === 'Not') return !evaluate(Array.isArray(args) ? args[0] : args, attrs);
  const key = args[0] as string;
  if (!Object.hasOwn(attrs, key)) return false; // rule 1
  const v = attrs[key];
  switch (variant) {
    case 'Eq':
      return valuesEqual(v, args[1]);
    case 'Ne':
      return !valuesEqual(v, args[1]);
    case 'In':
      return (args[1] as Value[]).some((c) => valuesEqual(v, c));
    case 'NotIn':
      return !(args[1] as Value[]).some((c) => valuesEqual(v, c));
    case 'Lt': {
      const o = order(v, args[1]);
      return o !== null && o < 0;
    }
    case 'Le': {
      const o = order(v, args[1]);
      return o !== null && o <= 0;
    }
    case 'Gt': {
      const o = order(v, args[1]);
      return o !== null && o > 0;
    }
    case 'Ge': {
      const o = order(v, args[1]);
      return o !== null && o >= 0;
    }
    case 'Glob':
      return isStr(v) && globMatch(args[1], payload(v), false);
    case 'IGlob':
      return isStr(v) && globMatch(args[1], payload(v), true);
    case 'Regex':
      return isStr(v) && regexMatch(args[1], payload(v));
    case 'Contains':
      return isList(v) && (payload(v) as string[]).includes(elementOf(args[1]));
    case 'NotContains':
      return isList(v) && !(payload(v) as string[]).includes(elementOf(args[1]));
    case 'ContainsAny':
      return isList(v) && (args[1] as Value[]).some((c) => (payload(v) as string[]).includes(elementOf(c)));
    case 'Fuzzy':
      return textTest(v, (s) => levenshtein(args[1], s) <= args[2]);
    case 'ContainsAllTokens': {
      const want = tokens(args[1]);
      return textTest(v, (s) => {
        const have = new Set(tokens(s));
        return want.every((x) => have.has(x));
      });
    }
    case 'ContainsAnyToken': {
      const want = tokens(args[1]);
      return textTest(v, (s) => tokens(s).some((x) => want.includes(x)));
    }
    case 'ContainsTokenSequence': {
      const want = tokens(args[1]);
      return textTest(v, (s) => hasSequence(tokens(s), want));
    }
  }
  throw new Error(`oracle: unknown variant ${variant}`);
}

/** A whole filter: the array is AND-combined; [] matches everything. */
export function matches(filter: Predicate[], attrs: Attrs): boolean {
  return filter.every((p) => evaluate(p, attrs));
}

/** The tokens of a text with their case kept (for building queries in generators). */
export function rawTokens(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of text) {
    if (isTokenCodePoint(ch.codePointAt(0)!)) cur += ch;
    else if (cur) {
      out.push(cur);
      cur = '';
    }
  }
  if (cur) out.push(cur);
  return out;
}
