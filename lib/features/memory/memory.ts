// Text-native memory (spec, "Memory routes"): remember embeds text (or its summary) and upserts it
// with the store's svc.* stamps; recall embeds a query and searches one collection, leaving out
// expired entries, and may reinforce what it returned. Everything below runs on the library's
// ordinary calls, plus two the store keeps to itself: an upsert that keeps svc.* keys, and the
// reinforcement write.
import { StoreError } from '../../store/errors';
import type { CallOptions } from '../../store/cancellation';
import type { RerankWindow } from '../../store/extension';
import type { Filter, Hit, Predicate, Value } from '../../types';
import { reranked } from '../rerank/rerank';
import { chunkText } from './chunking';
import { type Embedder, provided, type Reranker, signalOf, type Summarizer } from './providers';
import type { RecallRequest, RememberRequest, RememberResponse } from '../../types';

/** What memory needs from the store; `Store` provides it. */
export interface MemoryStore {
  readonly dimension: number;
  /** Why a write would be refused now (Store.writeRefusal), or null. */
  writeRefusal(): StoreError | null;
  /** The commit version served: any write moves it (metadata included). */
  commitVersion(): number;
  getMeta(name: string, o?: CallOptions): Promise<Record<string, string>>;
  putMeta(name: string, meta: Record<string, string>, o?: CallOptions): Promise<{ ok: true }>;
  collections(o?: CallOptions): Promise<string[]>;
  search(body: SearchBody, o?: CallOptions): Promise<Hit[]>;
  /** The same search answering the core's hit array bytes (Int values exact). */
  searchJson(body: SearchBody, o?: CallOptions): Promise<Buffer>;
  /** The same search's candidate window for its `rerank` (phase one of a reranked read). */
  rerankWindow(body: SearchBody, o?: CallOptions): Promise<RerankWindow>;
  delete(name: string, body: { ids: string[] }, o?: CallOptions): Promise<{ deleted: number }>;
  /** The live records among ids (absent ones left out). */
  get(name: string, ids: string[], o?: CallOptions): Promise<{ id: string }[]>;
  upsertStamped(name: string, body: { records: StampedRecord[] }, o?: CallOptions): Promise<{ upserted: number }>;
  reinforce(name: string, body: { ids: string[]; now: number; extend_ttl_ms?: number }, o?: CallOptions): Promise<{ reinforced: number }>;
}

export type SearchBody = { query: Float32Array; scope: string[]; top_k: number; filter?: Filter } & Record<string, unknown>;

export interface StampedRecord {
  id: string;
  /** Absent: a record without a vector (code ingested with no embedder). */
  vector?: Float32Array;
  attrs: Record<string, Value>;
}

export interface MemoryProviders {
  embedder: Embedder | null;
  summarizer: Summarizer | null;
  reranker: Reranker | null;
}

const DEFAULT_TOP_K = 10;
/** Chunk ids looked up at once when pruning a document's stale tail. */
const CHUNK_PROBE = 64;
/** Collection metadata naming the embedder of its vectors. */
export const EMBEDDER_KEY = 'svc.embedder';
const DIM_KEY = 'svc.dim';

const str = (s: string): Value => ({ Str: s });
const dateTime = (ms: number): Value => ({ DateTime: BigInt(ms) });

/** Recall's own predicate: entries whose svc.expires_at has passed never return (an absent one never expires). */
export const notExpired = (now: number): Predicate => ({ Not: { Lt: ['svc.expires_at', dateTime(now)] } });

/** Caller attributes without the reserved keys, which only the store stamps. */
function callerAttrs(attrs: Record<string, Value> | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(attrs ?? {})) if (!k.startsWith('svc.')) out[k] = v;
  return out;
}

export class Memory {
  // Dedupe reads the nearest entry and then writes: one collection's deduping writes take turns,
  // so two near-duplicates sent together cannot both insert.
  private readonly dedupeTurns = new Map<string, Promise<unknown>>();
  /** Collections whose embedder was found fine, by the commit version it was checked at. */
  private readonly checkedAt = new Map<string, number>();

  constructor(
    private readonly store: MemoryStore,
    private readonly providers: MemoryProviders,
    private readonly now: () => number,
  ) {}

  async remember(name: string, req: RememberRequest, o?: CallOptions): Promise<RememberResponse> {
    const embedder = this.embedder();
    const summarizer = req.mode === 'summarize' ? this.providers.summarizer : null;
    if (req.mode === 'summarize' && !summarizer)
      throw new StoreError(400, 'mode "summarize" needs a summarizer: start the server with --summarize-provider SPEC (for example extractive)');
    const refusal = this.store.writeRefusal();
    if (refusal) throw refusal;
    await this.checkEmbedder(name, embedder, o);
    const written = req.chunking ? await this.rememberChunks(name, req, embedder, o) : await this.rememberWhole(name, req, embedder, summarizer, o);
    if (written.upserted > 0) await this.recordEmbedder(name, embedder, o);
    return written;
  }

  /** The hit array as the core wrote it (JSON bytes), after any reinforcement. */
  async recall(name: string, req: RecallRequest, o?: CallOptions): Promise<Buffer> {
    const embedder = this.embedder();
    await this.checkEmbedder(name, embedder, o);
    const now = this.now();
    const [vector] = await provided(embedder.embed([req.query], signalOf(o)));
    const { query: _text, top_k, filter, reinforce: _reinforce, extend_ttl_seconds, rollup, rerank, ...passed } = req;
    // rollup is the per-document cap (a memory never chunked is a document by itself) with widening.
    const rolled = rollup && {
      limit_per: { field: 'svc.parent_id', max: rollup.per_parent ?? 1, missing: 'own' },
      expand: { radius: rollup.neighbours ?? 0 },
    };
    const body: SearchBody = {
      ...passed,
      ...rolled,
      query: vector,
      scope: [name],
      top_k: top_k || DEFAULT_TOP_K,
      filter: [...(filter ?? []), notExpired(now)],
    };
    const run = (b: Record<string, unknown>) => this.store.searchJson(b as SearchBody, o);
    const answer = rerank ? await reranked(await this.store.rerankWindow({ ...body, rerank }, o), () => this.providers.reranker, o) : await run(body);
    // Only the ids are read here, so a plain parse serves (attribute values are not used).
    const hits = req.reinforce ? (JSON.parse(answer.toString('utf8')) as { id: string }[]) : [];
    if (hits.length > 0) {
      // The library skips a read-only handle's stamps (spec); a poisoned or closed store fails.
      const refusal = this.store.writeRefusal();
      if (refusal && refusal.status === 503) throw refusal;
      if (refusal) {
        process.emitWarning(`recall: reinforce skipped: ${refusal.message}`, { code: 'TESSERA_REINFORCE_SKIPPED' });
      } else {
        const extend = extend_ttl_seconds === undefined ? {} : { extend_ttl_ms: Math.round(extend_ttl_seconds * 1000) };
        await this.store.reinforce(name, { ids: hits.map((h) => h.id), now, ...extend }, o);
      }
    }
    return answer;
  }

  /**
   * The store's embedder on one text: the vector leg of a text-only hybrid search (MCP). `scope`:
   * the collections the vector will be searched in ([] for all), each refused as recall refuses
   * one embedded by another provider.
   */
  async embed(text: string, o?: CallOptions, scope?: string[]): Promise<Float32Array> {
    const embedder = this.embedder();
    const names = scope?.length === 0 ? await this.store.collections(o) : (scope ?? []);
    for (const name of names) await this.checkEmbedder(name, embedder, o);
    const [vector] = await provided(embedder.embed([text], signalOf(o)));
    return vector;
  }

  /** The configured embedder, or null. */
  get configuredEmbedder(): Embedder | null {
    return this.providers.embedder;
  }

  /** The configured embedder; none is 400 naming --embed-provider. */
  embedder(): Embedder {
    const e = this.providers.embedder;
    if (!e) throw new StoreError(400, 'no embedder is configured: start the server with --embed-provider SPEC (for example hash:384, or openai:MODEL@URL)');
    return e;
  }

  /**
   * A collection embedded by another provider or model lives in another space: refused, naming
   * both. A collection found fine stays so until the store commits again, so a run of recalls
   * checks once.
   */
  async checkEmbedder(name: string, embedder: Embedder, o?: CallOptions): Promise<void> {
    const version = this.store.commitVersion();
    if (this.checkedAt.get(name) === version) return;
    const recorded = (await this.metaOrNone(name, o))[EMBEDDER_KEY];
    if (recorded !== undefined && recorded !== embedder.identity)
      throw new StoreError(
        400,
        `collection '${name}' was embedded by ${recorded}; this store embeds with ${embedder.identity}, whose vectors are not comparable`,
      );
    if (this.checkedAt.size > 10_000) this.checkedAt.clear();
    this.checkedAt.set(name, version);
  }

  /** A collection's metadata; none for a collection that does not exist (yet). */
  private async metaOrNone(name: string, o?: CallOptions): Promise<Record<string, string>> {
    try {
      return await this.store.getMeta(name, o);
    } catch (e) {
      if (e instanceof StoreError && e.status === 404) return {};
      throw e;
    }
  }

  /** Records the embedder that wrote a collection's vectors as its metadata. */
  async recordEmbedder(name: string, embedder: Embedder, o?: CallOptions): Promise<void> {
    const meta = await this.store.getMeta(name, o);
    if (meta[EMBEDDER_KEY] === embedder.identity && meta[DIM_KEY] === String(this.store.dimension)) return;
    await this.store.putMeta(name, { ...meta, [EMBEDDER_KEY]: embedder.identity, [DIM_KEY]: String(this.store.dimension) }, o);
  }

  /** The stamps every remember write carries; created_at is carried forward by a dedupe update. */
  private stamps(text: string, now: number, req: RememberRequest, createdAt: Value | undefined): Record<string, Value> {
    const attrs: Record<string, Value> = {
      ...callerAttrs(req.attrs),
      'svc.text': str(text),
      'svc.created_at': createdAt ?? dateTime(now),
      'svc.updated_at': dateTime(now),
    };
    if (req.ttl_seconds !== undefined) attrs['svc.expires_at'] = dateTime(now + Math.round(req.ttl_seconds * 1000));
    return attrs;
  }

  private async rememberWhole(
    name: string,
    req: RememberRequest,
    embedder: Embedder,
    summarizer: Summarizer | null,
    o?: CallOptions,
  ): Promise<RememberResponse> {
    const summary = summarizer ? await provided(summarizer.summarize(req.text, signalOf(o))) : null;
    const [vector] = await provided(embedder.embed([summary ?? req.text], signalOf(o)));
    const write = async (): Promise<RememberResponse> => {
      const now = this.now();
      const nearest = req.dedupe_threshold === undefined ? null : await this.nearest(name, vector, req.dedupe_threshold, now, o);
      const attrs = this.stamps(req.text, now, req, nearest?.attrs['svc.created_at']);
      if (summary !== null) attrs['svc.summary'] = str(summary);
      if (nearest) for (const kept of ['svc.access_count', 'svc.last_accessed']) if (nearest.attrs[kept] !== undefined) attrs[kept] = nearest.attrs[kept];
      const id = nearest?.id ?? req.id;
      const { upserted } = await this.store.upsertStamped(name, { records: [{ id, vector, attrs }] }, o);
      return { ok: true, upserted, id, deduped: nearest !== null };
    };
    return req.dedupe_threshold === undefined ? write() : this.inTurn(name, write);
  }

  /** The live, unexpired entry nearest to vector when its score reaches threshold. */
  private async nearest(name: string, vector: Float32Array, threshold: number, now: number, o?: CallOptions): Promise<Hit | null> {
    const [hit] = await this.store.search({ query: vector, scope: [name], top_k: 1, filter: [notExpired(now)] }, o);
    return hit && hit.score >= threshold ? hit : null;
  }

  private async inTurn<T>(name: string, run: () => Promise<T>): Promise<T> {
    const before = this.dedupeTurns.get(name) ?? Promise.resolve();
    const mine = before.then(run, run);
    const settled = mine.catch(() => undefined);
    this.dedupeTurns.set(name, settled);
    void settled.then(() => {
      if (this.dedupeTurns.get(name) === settled) this.dedupeTurns.delete(name);
    });
    return mine;
  }

  /**
   * One record per chunk, `{id}#{index}`, then the chunks a longer earlier version left beyond the
   * new last index are deleted. Empty text writes and prunes nothing (spec, "Chunking rules").
   */
  private async rememberChunks(name: string, req: RememberRequest, embedder: Embedder, o?: CallOptions): Promise<RememberResponse> {
    const chunks = chunkText(req.text, req.chunking);
    if (chunks.length === 0) return { ok: true, upserted: 0, id: req.id, deduped: false };
    const vectors = await provided(
      embedder.embed(
        chunks.map((c) => c.text),
        signalOf(o),
      ),
    );
    const now = this.now();
    const records = chunks.map((c, i) => ({
      id: `${req.id}#${c.index}`,
      vector: vectors[i],
      attrs: {
        ...this.stamps(c.text, now, req, undefined),
        'svc.parent_id': str(req.id),
        'svc.chunk_index': { Int: BigInt(c.index) },
        'svc.char_start': { Int: BigInt(c.char_start) },
      },
    }));
    const { upserted } = await this.store.upsertStamped(name, { records }, o);
    const stale = await this.chunksFrom(name, req.id, chunks.length, o);
    if (stale.length > 0) await this.store.delete(name, { ids: stale }, o);
    return { ok: true, upserted, id: req.id, deduped: false };
  }

  /**
   * The ids of document `id`'s chunks from index `from` on: found by id, a page at a time, since a
   * document's chunks are numbered without gaps (each remember prunes what lies past its last). A
   * filter on svc.parent_id would scan the whole collection at every remember.
   */
  private async chunksFrom(name: string, id: string, from: number, o?: CallOptions): Promise<string[]> {
    const found: string[] = [];
    for (let first = from; ; first += CHUNK_PROBE) {
      const page = await this.store.get(
        name,
        Array.from({ length: CHUNK_PROBE }, (_, i) => `${id}#${first + i}`),
        o,
      );
      found.push(...page.map((r) => r.id));
      if (page.length < CHUNK_PROBE) return found;
    }
  }
}
