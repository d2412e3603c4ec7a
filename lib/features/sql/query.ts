// POST /query's work: a script compiled once (and remembered), each statement run by the typed
// route it compiled to, the answers joined. A single statement answers its route's bytes as they
// are; a script answers them in a JSON array, in order.
import { stringifyExact } from '../../exact_json';
import type { CallOptions } from '../../store/cancellation';
import { type Compiled, compileStatement, type Kind } from './compile';
import { parseScript, SqlError } from './parse';

/** The Store methods a statement can run: each takes the typed route's raw body. */
export interface QueryStore {
  searchJson(body: Uint8Array, o?: CallOptions): Promise<Buffer>;
  textSearchJson(body: Uint8Array, o?: CallOptions): Promise<Buffer>;
  hybridSearchJson(body: Uint8Array, o?: CallOptions): Promise<Buffer>;
  listJson(body: Uint8Array, o?: CallOptions): Promise<Buffer>;
  aggregateJson(body: Uint8Array, o?: CallOptions): Promise<Buffer>;
  collections(o?: CallOptions): Promise<string[]>;
  aliases(o?: CallOptions): Promise<Record<string, string>>;
}

const ROUTES: Record<Kind, { path: string; run: (store: QueryStore, body: Uint8Array, o?: CallOptions) => Promise<Buffer> }> = {
  search: { path: '/search', run: (s, b, o) => s.searchJson(b, o) },
  'text-search': { path: '/text-search', run: (s, b, o) => s.textSearchJson(b, o) },
  'hybrid-search': { path: '/hybrid-search', run: (s, b, o) => s.hybridSearchJson(b, o) },
  list: { path: '/list', run: (s, b, o) => s.listJson(b, o) },
  aggregate: { path: '/aggregate', run: (s, b, o) => s.aggregateJson(b, o) },
};

/**
 * What each kind's route fills in for a field left out (the spec's tables), for compile_only; null
 * where there is no default. Projection is listed only when the statement names attributes (every
 * attribute is the default). Sent to its route with `scope`, the form runs the statement.
 */
const RANKED_DEFAULTS = { top_k: 10, offset: 0, filter: [], limit_per: null, diversity: null, expand: null, rerank: null };
const TEXT_DEFAULTS = { prefix: false, combine: 'Sum', explain: false, highlight: null };
const DEFAULTS: Record<Kind, Record<string, unknown>> = {
  search: { ...RANKED_DEFAULTS, min_score: null, exact: false, rank_by: null, plan: false, names: [], name_weights: {}, pool: 'Max' },
  'text-search': { ...RANKED_DEFAULTS, ...TEXT_DEFAULTS, min_score: null, rank_by: null },
  'hybrid-search': { ...RANKED_DEFAULTS, ...TEXT_DEFAULTS, rrf_k: 60, candidates: 100, vector_weight: 1, text_weight: 1, plan: false },
  list: { filter: [], offset: 0, limit: 100, order_by: null },
  aggregate: { filter: [], sum: [], group_by: null },
};

/** A compiled statement with its request body already serialized. */
export interface Prepared extends Compiled {
  bytes: Buffer;
}

/**
 * Scripts compiled lately, by their text, and the /query bodies that carried them, by their bytes:
 * a repeated statement skips the parser, a repeated body its JSON too.
 *
 * A Map keyed by the text would hash every character of each request's new string (a statement
 * with a 128-d vector: about 2 us, as much as the rest of what /query adds). The key here is a
 * sample instead, the length, the first and last 64 characters (bytes of a body) and every 16th
 * one between, and a hit is confirmed by comparing the whole text or body. Keys sharing a sample
 * form a chain; past CHAIN of them a new one is not cached, so no lookup compares more than CHAIN.
 *
 * Eviction gives a script used since it was last looked at a second chance (the clock algorithm),
 * so a hit only sets a flag.
 */
class ScriptCache {
  private static readonly CHAIN = 8;
  private readonly chains = new Map<number, Entry[]>();
  /** Every entry, oldest first: the clock's order. */
  private readonly order = new Set<Entry>();
  /** Characters of the texts and bytes of the bodies held. */
  private size = 0;
  constructor(
    private readonly maxSize: number,
    private readonly maxKeySize: number,
  ) {}

  get(key: Key): Prepared[] | undefined {
    const entry = this.chains.get(sample(key))?.find((e) => same(e.key, key));
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.prepared;
  }

  set(key: Key, prepared: Prepared[]): void {
    if (key.length > this.maxKeySize) return;
    const hash = sample(key);
    const chain = this.chains.get(hash) ?? [];
    if (chain.length >= ScriptCache.CHAIN) return;
    const entry: Entry = { key, hash, prepared, used: false };
    chain.push(entry);
    this.chains.set(hash, chain);
    this.order.add(entry);
    this.size += key.length;
    for (const oldest of this.order) {
      if (this.size <= this.maxSize) break;
      this.order.delete(oldest);
      if (oldest.used) {
        oldest.used = false;
        this.order.add(oldest);
      } else {
        this.forget(oldest);
      }
    }
  }

  private forget(entry: Entry): void {
    const chain = this.chains.get(entry.hash) as Entry[];
    chain.splice(chain.indexOf(entry), 1);
    if (chain.length === 0) this.chains.delete(entry.hash);
    this.size -= entry.key.length;
  }
}

/** A script's text, or the bytes of a /query body. */
type Key = string | Buffer;

interface Entry {
  key: Key;
  hash: number;
  prepared: Prepared[];
  used: boolean;
}

const same = (a: Key, b: Key): boolean => (typeof a === 'string' ? a === b : typeof b !== 'string' && a.equals(b));

/** An FNV-style hash of a key's length, its first and last 64 units and every 16th between. */
function sample(key: Key): number {
  const n = key.length;
  let h = n;
  const edge = Math.min(64, n);
  for (let i = 0; i < edge; i++) h = Math.imul(h ^ unit(key, i), 0x01000193);
  for (let i = edge; i < n - 64; i += 16) h = Math.imul(h ^ unit(key, i), 0x01000193);
  for (let i = Math.max(edge, n - 64); i < n; i++) h = Math.imul(h ^ unit(key, i), 0x01000193);
  return h;
}

const unit = (key: Key, i: number): number => (typeof key === 'string' ? key.charCodeAt(i) : key[i]);

// A few MiB of statement text and bodies: hundreds of distinct vector statements, thousands of short ones.
const cache = new ScriptCache(4 << 20, 256 << 10);

/** Compiles a script (every statement before any runs) or throws SqlError. */
export function compileScript(sql: string): Prepared[] {
  const cached = cache.get(sql);
  if (cached !== undefined) return cached;
  const { statements, byteOffset } = parseScript(sql);
  const prepared = statements.map((s) => {
    const compiled = compileStatement(s, byteOffset);
    return { ...compiled, bytes: serialized(compiled.body, byteOffset(s.at)) };
  });
  cache.set(sql, prepared);
  return prepared;
}

/** The statements of a /query body remembered before (one that ran: compile_only not true), found by its bytes. */
export const knownBody = (body: Buffer): Prepared[] | undefined => cache.get(body);

/**
 * Before a /query body runs `sql` (compile_only false): once `sql` has compiled before, a body with
 * the same bytes will find its statements by them. A body is remembered the second time its text
 * comes, so a statement sent once costs no more than its text's entry. The key is a copy: the
 * request's bytes may be a slice of a larger buffer, and are not kept.
 */
export function rememberBody(body: Buffer, sql: string): void {
  const prepared = cache.get(sql);
  if (prepared === undefined) return;
  const key = Buffer.allocUnsafeSlow(body.length);
  body.copy(key);
  cache.set(key, prepared);
}

/** The request's JSON; an option value nested thousands deep overflows the stack, and is refused. */
function serialized(body: Record<string, unknown>, at: number): Buffer {
  try {
    return stringifyExact(body);
  } catch (err) {
    if (err instanceof RangeError && /call stack/.test(err.message)) throw new SqlError(at, 'an option value nests too deeply to send; flatten it', 14);
    throw err;
  }
}

/**
 * Runs a compiled script, or with `compileOnly` describes what it would run; the answer as JSON
 * bytes. A single statement's answer is its route's promise itself, with no layer in between.
 */
export function runQuery(store: QueryStore, prepared: Prepared[], compileOnly: boolean, o?: CallOptions): Promise<Buffer> {
  if (compileOnly) return compiledForms(store, prepared, o).then((forms) => stringifyExact(prepared.length === 1 ? forms[0] : forms));
  if (prepared.length === 1) return ROUTES[prepared[0].kind].run(store, prepared[0].bytes, o);
  return runScript(store, prepared, o);
}

async function runScript(store: QueryStore, prepared: Prepared[], o?: CallOptions): Promise<Buffer> {
  const answers: Buffer[] = [];
  for (const [i, p] of prepared.entries()) {
    try {
      answers.push(await ROUTES[p.kind].run(store, p.bytes, o));
    } catch (err) {
      if (err instanceof Error) err.message = `statement ${i + 1} of ${prepared.length}: ${err.message}`;
      throw err;
    }
  }
  return Buffer.concat([Buffer.from('['), ...answers.flatMap((a, i) => (i === 0 ? [a] : [COMMA, a])), Buffer.from(']')]);
}

const COMMA = Buffer.from(',');

/** The compiled form: the kind, its route, the collections read (aliases resolved) and every option. */
async function compiledForms(store: QueryStore, prepared: Prepared[], o?: CallOptions): Promise<unknown[]> {
  const aliases = await store.aliases(o);
  const every = prepared.some((p) => p.body.scope === undefined || (p.body.scope as string[]).length === 0) ? await store.collections(o) : [];
  return prepared.map(({ kind, body }) => {
    const { scope, ...options } = body as { scope?: string[] };
    const collections = scope === undefined || scope.length === 0 ? every : scope.map((name) => aliases[name] ?? name);
    return { kind, route: ROUTES[kind].path, collections, options: { ...DEFAULTS[kind], ...options } };
  });
}
