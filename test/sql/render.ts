// Typed requests rendered as /query SQL (docs/sql.md), written from the docs alone and not from
// lib/features/sql: the inverse of the compiler, so a typed request, rendered and compiled back,
// must answer what the typed route answers. Every choice the grammar leaves open (keyword case,
// quoting a name that needs none, `<>` or `!=`, IS NULL or = NULL, BETWEEN, LIKE, NOT before a
// pattern operator, comments between tokens, the spelling of a number) is drawn from `rand`, so
// one request renders many ways.
import type { Predicate, Value } from '../../lib/index';

export type Kind = 'search' | 'text-search' | 'hybrid-search' | 'list' | 'aggregate';

/** A typed request as its route takes it (the fields of the spec's tables). */
export type Body = Record<string, unknown>;

/** Every word the grammar gives a meaning somewhere; a name spelled like one is quoted. */
const KEYWORDS = new Set([
  'and',
  'any',
  'asc',
  'between',
  'bm25',
  'by',
  'contains',
  'count',
  'desc',
  'except',
  'false',
  'from',
  'glob',
  'greatest',
  'group',
  'iglob',
  'ilike',
  'in',
  'is',
  'like',
  'limit',
  'missing',
  'nearest',
  'not',
  'null',
  'offset',
  'options',
  'or',
  'order',
  'regexp',
  'rrf',
  'select',
  'sum',
  'timestamp',
  'true',
  'where',
  'fuzzy',
  'contains_all_tokens',
  'contains_any_token',
  'contains_token_sequence',
]);

/** §2: a word with optional dotted parts needs no quotes. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
/** §2: a collection name may also hold `.` and `-` unquoted. */
const PLAIN_COLLECTION = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const WORD = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class Renderer {
  constructor(private readonly rand: () => number) {}

  private chance(p: number): boolean {
    return this.rand() < p;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)];
  }

  /** A keyword or function name in a random case (§1: case-insensitive). */
  kw(word: string): string {
    const r = this.rand();
    if (r < 0.6) return word.toUpperCase();
    if (r < 0.8) return word.toLowerCase();
    return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
  }

  /** Whitespace between two tokens: mostly a space, sometimes a line break or a comment (§1). */
  w(): string {
    const r = this.rand();
    if (r < 0.86) return ' ';
    if (r < 0.9) return '\n\t';
    if (r < 0.95) return ' /* it\'s [1, 2] "q" -- */ ';
    return " -- a comment with 'quotes' and [3, 4]\n";
  }

  /** `'...'` with `''` for a quote (§3). */
  str(s: string): string {
    return `'${s.replaceAll("'", "''")}'`;
  }

  quoted(name: string): string {
    return `"${name.replaceAll('"', '""')}"`;
  }

  /** An attribute name: bare when §2 allows it (and it is no keyword), else double-quoted. */
  key(name: string): string {
    if (PLAIN_KEY.test(name) && !KEYWORDS.has(name.toLowerCase()) && !this.chance(0.15)) return name;
    return this.quoted(name);
  }

  collection(name: string): string {
    if (PLAIN_COLLECTION.test(name) && !KEYWORDS.has(name.toLowerCase()) && !this.chance(0.15)) return name;
    return this.quoted(name);
  }

  /** An integer's digits, exact past 2^53. */
  int(n: number | bigint): string {
    return typeof n === 'bigint' ? n.toString() : String(n);
  }

  /** A Float literal: always with a `.` or an exponent, so it reads as Float, never Int (§3). */
  float(x: number): string {
    if (Object.is(x, -0)) return this.pick(['-0.0', '-0e0', '-.0']);
    const text = String(x);
    if (/[.e]/.test(text)) {
      if (!text.includes('e') && this.chance(0.2)) return x.toExponential();
      if (text.startsWith('0.') && this.chance(0.3)) return text.slice(1);
      return text;
    }
    return this.pick([`${text}.0`, `${text}.`, `${text}e0`, `${text}E+0`]);
  }

  /** A WHERE literal for a Value (§3 table). */
  value(v: Value): string {
    if (v === 'Null') return this.kw('null');
    if ('Str' in v) return this.str(v.Str);
    if ('Int' in v) return this.int(v.Int);
    if ('Float' in v) return this.float(v.Float);
    if ('Bool' in v) return this.kw(v.Bool ? 'true' : 'false');
    if ('DateTime' in v) return `${this.kw('timestamp')}${this.w()}${this.timestamp(v.DateTime)}`;
    return `[${v.List.map((s) => this.str(s)).join(`,${this.w()}`)}]`;
  }

  /** After TIMESTAMP: epoch milliseconds, or the ISO 8601 text of the same instant in years 100 to 9999. */
  timestamp(ms: number | bigint): string {
    const n = Number(ms);
    const iso = Number.isSafeInteger(n) && BigInt(n) === BigInt(ms) && n >= Date.UTC(100, 0, 1) && n < Date.UTC(10000, 0, 1);
    if (!iso || this.chance(0.4)) return this.int(ms);
    const text = new Date(n).toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
    const r = this.rand();
    if (r < 0.3) return this.str(text);
    if (r < 0.5 && text.endsWith('.000Z')) return this.str(text.slice(0, -5)); // no offset means UTC
    if (r < 0.65 && text.endsWith('T00:00:00.000Z')) return this.str(text.slice(0, 10)); // a date alone is midnight
    if (r < 0.8) {
      // The same instant written with an offset: +05:30 is five and a half hours ahead of UTC.
      const local = new Date(n + 330 * 60_000).toISOString().slice(0, 23);
      const year = Number(local.slice(0, 4));
      if (year >= 100 && year <= 9999) return this.str(`${local}+05:30`);
    }
    return this.str(text.replace('T', ' '));
  }

  list(vs: Value[]): string {
    return `(${vs.map((v) => this.value(v)).join(`,${this.w()}`)})`;
  }

  /** A predicate that can stand as an operand of AND, OR or NOT: a leaf, or a group in parentheses. */
  predicate(p: Predicate): string {
    const [variant, args] = Object.entries(p)[0] as [string, unknown];
    const w = () => this.w();
    const kw = (word: string) => this.kw(word);
    switch (variant) {
      case 'All':
      case 'Any': {
        const children = args as Predicate[];
        const between = variant === 'All' ? this.between(children) : null;
        if (between !== null && this.chance(0.5)) return between;
        const missing = variant === 'Any' ? this.presence(children) : null;
        if (missing !== null && this.chance(0.7)) return `${missing}${w()}${kw('is')}${w()}${kw('not')}${w()}${kw('missing')}`;
        return `(${children.map((c) => this.predicate(c)).join(`${w()}${kw(variant === 'All' ? 'and' : 'or')}${w()}`)})`;
      }
      case 'Not': {
        const inner = args as Predicate;
        const [iv, ia] = Object.entries(inner)[0] as [string, unknown];
        if (iv === 'Any') {
          const missing = this.presence(ia as Predicate[]);
          if (missing !== null && this.chance(0.7)) return `${missing}${w()}${kw('is')}${w()}${kw('missing')}`;
        }
        if (iv === 'All') {
          const range = this.betweenParts(ia as Predicate[]);
          if (range !== null && this.chance(0.5))
            return `${range.key}${w()}${kw('not')}${w()}${kw('between')}${w()}${range.low}${w()}${kw('and')}${w()}${range.high}`;
        }
        if ((iv === 'Glob' || iv === 'IGlob' || iv === 'Regex') && this.chance(0.5)) {
          const [k, pattern] = ia as [string, string];
          return `${this.key(k)}${w()}${kw('not')}${w()}${this.patternOp(iv, pattern)}`;
        }
        const operand = this.predicate(inner);
        return this.chance(0.5) ? `${kw('not')}${w()}${operand}` : `${kw('not')}${w()}(${operand})`;
      }
      case 'Fuzzy': {
        const [k, text, edits] = args as [string, string, number | bigint];
        return `${kw('fuzzy')}(${this.key(k)},${w()}${this.str(text)},${w()}${this.int(edits)})`;
      }
      case 'ContainsAllTokens':
      case 'ContainsAnyToken':
      case 'ContainsTokenSequence': {
        const fn = { ContainsAllTokens: 'contains_all_tokens', ContainsAnyToken: 'contains_any_token', ContainsTokenSequence: 'contains_token_sequence' }[
          variant
        ];
        const [k, text] = args as [string, string];
        return `${kw(fn)}(${w()}${this.key(k)},${w()}${this.str(text)}${w()})`;
      }
    }
    const [k, operand] = args as [string, unknown];
    const key = this.key(k);
    switch (variant) {
      case 'Eq':
        if (operand === 'Null' && this.chance(0.6)) return `${key}${w()}${kw('is')}${w()}${kw('null')}`;
        return `${key}${w()}=${w()}${this.value(operand as Value)}`;
      case 'Ne':
        if (operand === 'Null' && this.chance(0.6)) return `${key}${w()}${kw('is')}${w()}${kw('not')}${w()}${kw('null')}`;
        return `${key}${w()}${this.pick(['!=', '<>'])}${w()}${this.value(operand as Value)}`;
      case 'Lt':
      case 'Le':
      case 'Gt':
      case 'Ge': {
        const op = { Lt: '<', Le: '<=', Gt: '>', Ge: '>=' }[variant];
        return `${key}${w()}${op}${w()}${this.value(operand as Value)}`;
      }
      case 'In':
        return `${key}${w()}${kw('in')}${w()}${this.list(operand as Value[])}`;
      case 'NotIn':
        return `${key}${w()}${kw('not')}${w()}${kw('in')}${w()}${this.list(operand as Value[])}`;
      case 'Glob':
      case 'IGlob':
      case 'Regex':
        return `${key}${w()}${this.patternOp(variant, operand as string)}`;
      case 'Contains':
        return `${key}${w()}${kw('contains')}${w()}${this.value(operand as Value)}`;
      case 'NotContains':
        return `${key}${w()}${kw('not')}${w()}${kw('contains')}${w()}${this.value(operand as Value)}`;
      case 'ContainsAny':
        return `${key}${w()}${kw('contains')}${w()}${kw('any')}${w()}${this.list(operand as Value[])}`;
    }
    throw new Error(`no SQL for predicate ${variant}`);
  }

  /** GLOB / IGLOB as written, LIKE / ILIKE when the pattern has a LIKE spelling, REGEXP or `~`. */
  private patternOp(variant: string, pattern: string): string {
    if (variant === 'Regex') return `${this.chance(0.5) ? this.kw('regexp') : '~'}${this.w()}${this.str(pattern)}`;
    // LIKE writes * as % and ? as _; a pattern holding its own %, _ or a glob class has no LIKE form.
    const likeable = !/[%_[\]\\]/.test(pattern);
    const like = variant === 'Glob' ? 'like' : 'ilike';
    if (likeable && this.chance(0.5)) return `${this.kw(like)}${this.w()}${this.str(pattern.replaceAll('*', '%').replaceAll('?', '_'))}`;
    return `${this.kw(variant === 'Glob' ? 'glob' : 'iglob')}${this.w()}${this.str(pattern)}`;
  }

  /** `[Ge k a, Le k b]` is `k BETWEEN a AND b` (§6). */
  private betweenParts(children: Predicate[]): { key: string; low: string; high: string } | null {
    if (children.length !== 2 || !('Ge' in children[0]) || !('Le' in children[1])) return null;
    const [k1, low] = children[0].Ge;
    const [k2, high] = children[1].Le;
    if (k1 !== k2) return null;
    return { key: this.key(k1), low: this.value(low), high: this.value(high) };
  }

  private between(children: Predicate[]): string | null {
    const range = this.betweenParts(children);
    return range && `${range.key}${this.w()}${this.kw('between')}${this.w()}${range.low}${this.w()}${this.kw('and')}${this.w()}${range.high}`;
  }

  /** `[Eq k Null, Ne k Null]` (present with any value) names `k`: the IS [NOT] MISSING shape. */
  private presence(children: Predicate[]): string | null {
    if (children.length !== 2 || !('Eq' in children[0]) || !('Ne' in children[1])) return null;
    const [k1, v1] = children[0].Eq;
    const [k2, v2] = children[1].Ne;
    return k1 === k2 && v1 === 'Null' && v2 === 'Null' ? this.key(k1) : null;
  }

  /**
   * A filter array: its predicates joined by AND at the top. An adjacent `Ge k a`, `Le k b` pair
   * may come out as BETWEEN, which compiles to the same two top-level predicates.
   */
  where(filter: Predicate[]): string {
    const parts: string[] = [];
    for (let i = 0; i < filter.length; i++) {
      const pair = i + 1 < filter.length ? this.betweenParts([filter[i], filter[i + 1]]) : null;
      if (pair !== null && this.chance(0.5)) {
        parts.push(this.between([filter[i], filter[i + 1]])!);
        i++;
      } else parts.push(this.predicate(filter[i]));
    }
    return parts.join(`${this.w()}${this.kw('and')}${this.w()}`);
  }

  /** A number in OPTIONS or a function argument: integers as digits, others as a round-tripping literal. */
  private number(x: number | bigint): string {
    if (typeof x === 'bigint' || (Number.isInteger(x) && !Object.is(x, -0))) return this.int(x);
    return this.float(x);
  }

  /**
   * A JSON-shaped option value (§3, "Option values"): strings, numbers, booleans, null, arrays and
   * objects; a one-key object holding an object may be the tagged call `Name(k => v, ...)`, and a
   * Decay's `origin` may be written as a TIMESTAMP.
   */
  plain(v: unknown, key = ''): string {
    const w = () => this.w();
    if (v === null) return this.kw('null');
    if (typeof v === 'boolean') return this.kw(v ? 'true' : 'false');
    if (typeof v === 'string') return this.str(v);
    if (typeof v === 'number' || typeof v === 'bigint') {
      if (key === 'origin' && Number.isInteger(Number(v)) && this.chance(0.6)) return `${this.kw('timestamp')}${w()}${this.timestamp(v)}`;
      return this.number(v);
    }
    if (Array.isArray(v)) return `[${v.map((x) => this.plain(x)).join(`,${w()}`)}]`;
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1 && WORD.test(entries[0][0])) {
      const [tag, inner] = entries[0];
      if (typeof inner === 'object' && inner !== null && !Array.isArray(inner) && Object.keys(inner).every((k) => WORD.test(k)) && this.chance(0.6))
        return `${tag}(${Object.entries(inner)
          .map(([k, x]) => `${k}${w()}=>${w()}${this.plain(x, k)}`)
          .join(`,${w()}`)})`;
    }
    return `{${entries.map(([k, x]) => `${WORD.test(k) && this.chance(0.7) ? k : this.str(k)}:${w()}${this.plain(x, k)}`).join(`,${w()}`)}}`;
  }

  /** A numeric vector: JSON numbers mostly, sometimes spellings JSON has no room for (`.5`, `1.`). */
  vector(v: number[]): string {
    const sep = this.chance(0.3) ? ' , ' : ', ';
    if (this.chance(0.7)) return `[${v.join(sep)}]`;
    return `[${v.map((x) => (Number.isInteger(x) ? `${x}.` : String(x).replace(/^(-?)0\./, '$1.'))).join(sep)}]`;
  }

  private shuffled<T>(xs: readonly T[]): T[] {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.rand() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** Named function arguments `, name => value` (§8 to §10), in a random order. */
  private named(args: [string, unknown][]): string {
    return this.shuffled(args)
      .map(([name, v]) => `,${this.w()}${name}${this.w()}=>${this.w()}${this.plain(v, name)}`)
      .join('');
  }

  private bm25(field: string, query: string, prefix: unknown): string {
    return `${this.kw('bm25')}(${this.key(field)},${this.w()}${this.str(query)}${prefix === undefined ? '' : this.named([['prefix', prefix]])})`;
  }

  /** §9's text head from the route's field + query (+ prefix) or clauses, with combine. */
  private textHead(b: Body, queryKey: 'query' | 'text'): string {
    const clauses = b.clauses as { field: string; query: string; prefix?: boolean }[] | undefined;
    const heads =
      clauses === undefined ? [this.bm25(b.field as string, b[queryKey] as string, b.prefix)] : clauses.map((c) => this.bm25(c.field, c.query, c.prefix));
    if (b.combine === 'Max') return `${this.kw('greatest')}(${heads.join(`,${this.w()}`)})`;
    return heads.join(`${this.w()}+${this.w()}`);
  }

  private projection(b: Body): string {
    if (Array.isArray(b.include_attributes)) return (b.include_attributes as string[]).map((k) => this.key(k)).join(`,${this.w()}`);
    const star = `*`;
    if (Array.isArray(b.exclude_attributes))
      return `${star}${this.w()}${this.kw('except')}${this.w()}(${(b.exclude_attributes as string[]).map((k) => this.key(k)).join(`,${this.w()}`)})`;
    return star;
  }

  /** Which fields a kind sets through OPTIONS (§8 to §11), in the order they are tried. */
  static readonly OPTIONS: Record<Kind, readonly string[]> = {
    search: ['min_score', 'exact', 'rank_by', 'limit_per', 'diversity', 'expand', 'rerank', 'plan'],
    'text-search': ['min_score', 'rank_by', 'limit_per', 'diversity', 'expand', 'rerank', 'explain', 'highlight'],
    'hybrid-search': ['limit_per', 'diversity', 'expand', 'rerank', 'explain', 'highlight', 'plan'],
    list: [],
    aggregate: [],
  };

  /** One SELECT statement that compiles to `body` on the route of `kind`. */
  statement(kind: Kind, b: Body): string {
    const w = () => this.w();
    const kw = (word: string) => this.kw(word);
    const parts: string[] = [];
    if (kind === 'aggregate') {
      // COUNT(*) is always reported, so it may be left out of a list that already aggregates or groups.
      const sums = ((b.sum as string[] | undefined) ?? []).map((k) => `${kw('sum')}(${this.key(k)})`);
      const grouped = typeof b.group_by === 'string';
      const items = sums.length + (grouped ? 1 : 0) > 0 && this.chance(0.3) ? sums : [`${kw('count')}(*)`, ...sums];
      if (grouped && (items.length === 0 || this.chance(0.5))) items.push(this.key(b.group_by as string));
      parts.push(`${kw('select')}${w()}${items.join(`,${w()}`)}`);
    } else parts.push(`${kw('select')}${w()}${this.projection(b)}`);
    const scope = b.scope as string[] | undefined;
    if (scope !== undefined && scope.length > 0) parts.push(`${kw('from')}${w()}${scope.map((c) => this.collection(c)).join(`,${w()}`)}`);
    const filter = b.filter as Predicate[] | undefined;
    if (filter !== undefined && filter.length > 0) parts.push(`${kw('where')}${w()}${this.where(filter)}`);
    if (kind === 'aggregate' && typeof b.group_by === 'string') parts.push(`${kw('group')}${w()}${kw('by')}${w()}${this.key(b.group_by)}`);
    const desc = () => (this.chance(0.3) ? `${w()}${kw('desc')}` : '');
    switch (kind) {
      case 'search': {
        const args: [string, unknown][] = [];
        for (const name of ['names', 'name_weights', 'pool']) if (b[name] !== undefined) args.push([name, b[name]]);
        parts.push(`${kw('order')}${w()}${kw('by')}${w()}${kw('nearest')}(${this.vector(b.query as number[])}${this.named(args)})${desc()}`);
        break;
      }
      case 'text-search':
        parts.push(`${kw('order')}${w()}${kw('by')}${w()}${this.textHead(b, 'query')}${desc()}`);
        break;
      case 'hybrid-search': {
        const args: [string, unknown][] = [];
        if (b.rrf_k !== undefined) args.push([this.chance(0.5) ? 'k' : 'rrf_k', b.rrf_k]);
        for (const name of ['candidates', 'vector_weight', 'text_weight']) if (b[name] !== undefined) args.push([name, b[name]]);
        const nearest = `${kw('nearest')}(${this.vector(b.vector as number[])})`;
        parts.push(`${kw('order')}${w()}${kw('by')}${w()}${kw('rrf')}(${nearest},${w()}${this.textHead(b, 'text')}${this.named(args)})${desc()}`);
        break;
      }
      case 'list': {
        const order = b.order_by as { field: string; descending?: boolean } | undefined;
        if (order !== undefined) {
          const dir = order.descending === true ? `${w()}${kw('desc')}` : this.chance(0.5) ? `${w()}${kw('asc')}` : '';
          parts.push(`${kw('order')}${w()}${kw('by')}${w()}${this.key(order.field)}${dir}`);
        }
        break;
      }
      case 'aggregate':
        if (this.chance(0.3)) parts.push(`${kw('order')}${w()}${kw('by')}${w()}${kw('count')}(*)${this.chance(0.5) ? `${w()}${kw('desc')}` : ''}`);
        break;
    }
    const limit = kind === 'list' ? b.limit : b.top_k;
    if (limit !== undefined) parts.push(`${kw('limit')}${w()}${this.int(limit as number)}`);
    if (b.offset !== undefined) parts.push(`${kw('offset')}${w()}${this.int(b.offset as number)}`);
    const options = Renderer.OPTIONS[kind].filter((name) => b[name] !== undefined);
    if (options.length > 0) {
      const list = this.shuffled(options).map((name) => `${name}${w()}=${w()}${this.plain(b[name], name)}`);
      parts.push(`${kw('options')}${w()}(${list.join(`,${w()}`)})`);
    }
    return parts.join(w());
  }
}
