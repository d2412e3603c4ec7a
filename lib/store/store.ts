// The Store class: the embedded library, one async method per route of the spec. Every call runs
// in the core on a worker thread; bodies that carry vectors or Values cross as JSON bytes.
import { type LibraryRoutes, type RouteMethod, type Routes, routeArgs, routeEntries } from '../contract/routes';
import { parseExact } from '../exact_json';
import { type NativeFootprint, native, type NativeStore } from '../native';
import type {
  AnnConfig,
  ClusterStatus,
  Distance,
  Hit,
  HitArrays,
  IndexSettingInfo,
  OpenOptions,
  QuantizationConfig,
  Role,
  PlannedHits,
  SearchRequest,
  Stats,
  StoredRecord,
  ReplicationPoint,
} from '../types';
import { bodyBytes } from './body';
import { call, isCancelled, read } from './call';
import type { CallOptions } from './cancellation';
import { RecordsCursor } from './cursor';
import { fetchingCore, notResidentOf } from './fetching_core';
import { Serial } from './serial';
import { StoreError, cancelledError, toStoreError } from './errors';
import type { BackupPoint, StoreInternals } from './extension';

const json = <T>(b: Buffer): T => JSON.parse(b.toString('utf8')) as T;

/** How often a backup waiting for index builds looks again (a build takes seconds). */
const BUILDS_POLL_MS = 20;

/** The write faults `_injectFault` can arm (the addon's injectWriteFault spells them the same). */
const WRITE_FAULTS = ['poison-next-write', 'oom-preparing-next-write', 'oom-applying-next-write'] as const;
/** The compaction faults, by where the addon's injectCompactionFault makes the next compaction fail. */
const COMPACTION_FAULTS = {
  'compaction-before-switch': 'before-switch',
  'compaction-at-switch': 'at-switch',
  'compactions-held': 'held',
} as const;
/** Every fault `_injectFault` can arm. */
export const FAULTS = [...WRITE_FAULTS, ...(Object.keys(COMPACTION_FAULTS) as (keyof typeof COMPACTION_FAULTS)[])];
export type Fault = (typeof FAULTS)[number];

/** The read routes whose raw JSON bodies the core reads as they are (Store.readJson): the table's `read` routes and /search. */
export type RawRead = LibraryRoutes<'read'> | 'search';
const RAW_READS: readonly string[] = ['search', ...routeEntries().flatMap(([id, spec]) => (spec.library === 'read' ? [id] : []))];

/** The Store's method of each `call` and `read` route of the table, and each read's `<id>Json` bytes form. */
type RouteMethods = { [K in LibraryRoutes<'call' | 'read'>]: RouteMethod<Routes[K], CallOptions> } & {
  [K in LibraryRoutes<'read'> as `${K}Json`]: (body: Uint8Array, o?: CallOptions) => Promise<Buffer>;
};

/** The options the core reads: the library's own (and its extensions') stay here. */
function coreOptions({ pull: _p, fetchCollections: _f, ...rest }: OpenOptions): OpenOptions {
  const core: Record<string, unknown> = { ...rest };
  for (const extension of storeExtensions()) for (const key of extension.options ?? []) delete core[key];
  return core as OpenOptions;
}

/** Every extension's refusal of options it cannot serve; `dimension` once known. */
function checkExtensions(options: OpenOptions, dimension: number | undefined): void {
  for (const extension of storeExtensions()) extension.check?.(options, dimension);
}

/** What the addon's option reader takes for granted (it reads dimension and queryThreads as numbers). */
function checkOptionShapes(options: OpenOptions): void {
  if (!options.inMemory && !options.path) throw new StoreError(400, 'open() needs a path, or inMemory: true');
  if (options.dimension !== undefined && !(Number.isInteger(options.dimension) && options.dimension >= 0 && options.dimension <= 65536))
    throw new StoreError(400, `dimension must be an integer from 0 to 65536, got ${options.dimension}`);
  if (options.queryThreads !== undefined && !(Number.isInteger(options.queryThreads) && options.queryThreads >= 1 && options.queryThreads <= 1024))
    throw new StoreError(400, `queryThreads must be an integer from 1 to 1024, got ${options.queryThreads}`);
  for (const key of ['historyVersions', 'atVersion'] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw new StoreError(400, `${key} must be a whole number from 0, got ${v}`);
  }
  if (options.maxStalenessMs !== undefined && !(Number.isInteger(options.maxStalenessMs) && options.maxStalenessMs >= 1))
    throw new StoreError(400, `maxStalenessMs must be a whole number of milliseconds of at least 1, got ${options.maxStalenessMs}`);
  if (options.resident !== undefined) checkNames(options.resident, 'resident');
  if (options.maxVectorBytes !== undefined && !(Number.isSafeInteger(options.maxVectorBytes) && options.maxVectorBytes >= 0))
    throw new StoreError(400, `maxVectorBytes must be a whole number of bytes (0 to 2^53 - 1; leave it out for no limit), got ${options.maxVectorBytes}`);
  if (options.mappedVectorBytes !== undefined && !(Number.isSafeInteger(options.mappedVectorBytes) && options.mappedVectorBytes >= 0))
    throw new StoreError(400, `mappedVectorBytes must be a whole number of bytes (0 to 2^53 - 1), got ${options.mappedVectorBytes}`);
}

/**
 * Opens the native store. A writer holding some collections (`resident`) whose log changed rows of
 * others has their files fetched (`fetchCollections`) and opens again holding them too.
 */
async function openCore(options: OpenOptions): Promise<NativeStore> {
  let resident = options.resident;
  for (;;) {
    try {
      return await native.NativeStore.open(coreOptions({ ...options, resident }));
    } catch (e) {
      const missing = notResidentOf(e);
      if (!missing || !options.fetchCollections || missing.every((n) => resident?.includes(n))) throw e;
      await options.fetchCollections(missing);
      resident = [...new Set([...(resident ?? []), ...missing])];
    }
  }
}

/** A list of collection names, as the addon reads it. */
function checkNames(names: unknown, what: string): void {
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new StoreError(400, `${what} must be an array of collection names`);
}

let settingOptions: Map<string, string> | undefined;
/** The open option that carries a core setting (`ef_search` -> `efSearch`), by the core's table. */
function settingOption(setting: string): string {
  settingOptions ??= new Map(native.NativeStore.indexSettings().map((s) => [s.name, s.option]));
  return settingOptions.get(setting) ?? setting;
}

/**
 * An open store as another JS thread of the process takes it (Store.adopt): the core store's number,
 * the cell every thread's handle keeps its last refresh time in, and the options it was opened with
 * (the extensions make their state from them). Structured-cloneable: a worker receives it by postMessage.
 */
export interface SharedStore {
  core: number;
  refreshedAt: SharedArrayBuffer;
  options: OpenOptions;
}

/**
 * How a feature adds to the library without this class knowing it. A feature installs one
 * (lib/features/extensions.ts installs them all, and every entry point loads that): it may refuse
 * open options of its own, keep state for each store opened, take over a ranked read, and define
 * Store methods of its own (declared by merging into Store, set on its prototype).
 */
export interface StoreExtension {
  readonly name: string;
  /** The build feature it belongs to, listed in /stats `features` when built in; null: always part of the library (SQL). */
  readonly feature: string | null;
  /** Whether this package was built with it; a disabled extension's methods answer 404. */
  readonly enabled: boolean;
  /** Open options that are its own: the core never sees them. */
  readonly options?: readonly (keyof OpenOptions)[];
  /** Refuses options it cannot serve (a bad provider spec) before anything is opened; `dimension` once known. */
  check?(options: OpenOptions, dimension: number | undefined): void;
  /** Makes its state for a store just opened (refusing it closes the store again). */
  open?(store: Store, internals: StoreInternals, options: OpenOptions): void;
  /** Takes over a read of `route` (its answer), or leaves it to the core's plain read (undefined). */
  read?(store: Store, route: RawRead, body: Uint8Array, o?: CallOptions): Promise<Buffer> | undefined;
  /** Whether `read` would take over this read: a synchronous read (Store.searchSync) leaves those to the async one. */
  takes?(route: RawRead, body: Uint8Array): boolean;
}

const installed: StoreExtension[] = [];

/** Adds an extension to every store opened from now on, in install order. */
export function installExtension(extension: StoreExtension): void {
  if (installed.some((e) => e.name === extension.name)) throw new Error(`store extension ${extension.name} is installed twice`);
  installed.push(extension);
}

export const storeExtensions = (): readonly StoreExtension[] => installed;

// The route table's pass-through methods, set on the prototype by the class's static block.
export interface Store extends RouteMethods {}

/** An open store. Every route of the spec maps onto one of its methods (README's route table). */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: its static block defines every method the interface declares.
export class Store {
  readonly role: Role;
  /** Who holds the writer lock when this handle opened as a Reader because of it. */
  readonly writerHolder: string | null;
  readonly dimension: number;
  readonly distance: Distance;
  readonly queryThreads: number;
  readonly mmap: boolean;
  /** The ANN index configuration this handle runs with (opened, else recorded, else default); null: exact search. */
  readonly ann: AnnConfig | null;
  /** The quantized first pass this handle runs with; null: none. */
  readonly quantization: QuantizationConfig | null;
  /** When a Reader last refreshed successfully (or opened), in ms since the epoch: the age of the state it serves. Shared by every thread's handle. */
  private readonly refreshedAt: Float64Array;
  private readonly refreshes = new Serial();
  /** What share() answered, once asked: one entry in the addon's registry per store. */
  private shared: SharedStore | null = null;

  private constructor(
    private readonly core: NativeStore,
    private readonly options: OpenOptions,
    private readonly pull: (() => Promise<void>) | null,
    refreshedAt?: SharedArrayBuffer,
  ) {
    this.refreshedAt = new Float64Array(refreshedAt ?? new SharedArrayBuffer(8));
    if (!refreshedAt) this.refreshedAt[0] = Date.now();
    const info = core.info();
    this.role = info.role;
    this.writerHolder = info.writerHolder;
    this.dimension = info.dimension;
    this.distance = info.distance;
    this.queryThreads = info.queryThreads;
    this.mmap = info.mmap;
    this.ann = info.ann;
    this.quantization = info.quantization;
  }

  // Each `call` route of the table calls the core's method of its name with the path's parameters
  // and the body's bytes, and parses its JSON; each `read` route reads through readJson.
  static {
    const define = (name: string, method: (this: Store, ...args: never[]) => unknown) =>
      Object.defineProperty(Store.prototype, name, { value: method, writable: true });
    for (const [id, spec] of routeEntries()) {
      if (spec.library === 'call') {
        define(id, async function (this: Store, ...args: unknown[]) {
          const { params, body, options } = routeArgs<CallOptions>(spec, args);
          const core = this.core as unknown as Record<string, (...a: unknown[]) => Promise<Buffer>>;
          return json(await call(options, () => (body === undefined ? core[id](...params) : core[id](...params, bodyBytes(body)))));
        });
      } else if (spec.library === 'read') {
        const route = id as RawRead;
        define(`${id}Json`, function (this: Store, body: Uint8Array, o?: CallOptions) {
          return this.readJson(route, body, o);
        });
        define(id, async function (this: Store, ...args: unknown[]) {
          const { body, options } = routeArgs<CallOptions>(spec, args);
          return parseExact(await this.readJson(route, bodyBytes(body ?? {}), options));
        });
      }
    }
  }

  /** Opens (or creates) a store. A store directory another process writes opens as a Reader. */
  static async open(options: OpenOptions): Promise<Store> {
    checkOptionShapes(options);
    // A bad provider spec is refused before anything is opened; the extensions check again below
    // with the store's own dimension (no provider call happens here).
    checkExtensions(options, options.dimension);
    let store: Store;
    try {
      const core = await openCore(options);
      const fetch = options.fetchCollections;
      store = new Store(fetch ? fetchingCore(core, fetch) : core, options, options.pull ?? null);
    } catch (e) {
      throw toStoreError(e, settingOption);
    }
    try {
      checkExtensions(options, store.dimension);
      store.openExtensions();
    } catch (e) {
      await store.close();
      throw e;
    }
    return store;
  }

  /**
   * This store for another JS thread of the process (a worker_threads Worker): post the answer to
   * it and `Store.adopt` it there. Every thread's handle reads and writes the one core store, each
   * settling its calls on its own thread. Close it from the thread that opened it, once the others
   * are done with it; a handle adopted afterwards is refused. Every call answers the same share.
   * Not for a store opened with `fetchCollections` or `pull` (cluster mode), whose functions stay
   * on their thread.
   */
  share(): SharedStore {
    if (this.pull || this.options.fetchCollections)
      throw new StoreError(400, 'a store opened with pull or fetchCollections cannot be shared with another thread');
    const { fetchCollections: _f, pull: _p, ...options } = this.options;
    this.shared ??= { core: this.core.share(), refreshedAt: this.refreshedAt.buffer as SharedArrayBuffer, options };
    return this.shared;
  }

  /** The store another thread shared (`share()`), as a handle of this thread: 503 once that store closed. */
  static adopt(shared: SharedStore): Store {
    let core: NativeStore;
    try {
      core = native.NativeStore.adopt(shared.core);
    } catch (e) {
      throw new StoreError(503, `cannot adopt the shared store: ${(e as Error).message}`);
    }
    const store = new Store(core, shared.options, null, shared.refreshedAt);
    store.openExtensions();
    return store;
  }

  /**
   * An adopted handle lets its store go, unclosed: the thread that opened it goes on serving it.
   * Calls in flight finish; later ones on this handle fail. (The memory goes when the last thread's
   * handle lets go or closes, not when this object is collected.)
   */
  disown(): void {
    this.core.drop();
  }

  private openExtensions(): void {
    const internals = this.internals();
    for (const extension of storeExtensions()) extension.open?.(this, internals, this.options);
  }

  /**
   * Rejects exactly as `open` would for options the store refuses (dimension or distance against an
   * existing header, every index setting), without opening, locking, creating or writing anything.
   * The CLI calls it before it listens, so a bad flag never starts a server.
   */
  static async check(options: OpenOptions): Promise<void> {
    checkOptionShapes(options);
    checkExtensions(options, options.dimension);
    try {
      await native.NativeStore.check(coreOptions(options));
    } catch (e) {
      throw toStoreError(e, settingOption);
    }
  }

  /**
   * How costly a read may be and still run on this JS thread as it arrives (readJson answers its
   * bytes at once, no query thread involved): 'handoff', the default, only what costs less than
   * handing it over (about 10 us here); 'sync' up to searchSync's bound (about 250 us: an indexed
   * walk at the default ef_search). A server with several HTTP threads serves ordinary reads on the
   * thread that received them; with one, a walk there would hold up every other connection.
   */
  static inlineReads(bound: 'handoff' | 'sync'): void {
    native.inlineReads(bound);
  }

  /** The ANN and quantization settings `open` takes: names, kinds or ranges, and defaults, from the core's one table. */
  static indexSettings(): IndexSettingInfo[] {
    return native.NativeStore.indexSettings();
  }

  /** The poison message once an exception escaped while the write lock was held; never clears. */
  poisoned(): string | null {
    return this.core.poisoned();
  }

  /** The commit version being served. Reads memory only. */
  commitVersion(): number {
    return this.core.commitVersion();
  }

  /** /cluster: role and currency. Reads memory only. */
  cluster(): ClusterStatus {
    const reader = this.role === 'Reader';
    return {
      role: this.role,
      cluster: false,
      holds_writer_handle: !reader,
      fenced: false,
      lease_owner: null,
      commit_version: this.commitVersion(),
      staleness_secs: Math.floor(this.stalenessMs() / 1000),
      max_staleness_secs: this.options.maxStalenessMs == null ? null : Math.floor(this.options.maxStalenessMs / 1000),
    };
  }

  /** The past version this handle serves (`atVersion`, `pin()`); null when it serves the latest. */
  pinned(): number | null {
    return this.core.pinned();
  }

  /** How old the served state may be: since a Reader's last successful refresh (or open), pinned ones included; 0 for a writer. */
  stalenessMs(): number {
    return this.role === 'Reader' ? Date.now() - this.refreshedAt[0] : 0;
  }

  /**
   * Whether a Reader went unrefreshed past `maxStalenessMs` (the server's /ready then answers 503).
   * Never while pinned: a pinned handle serves its version on purpose and cannot catch up.
   */
  stale(): boolean {
    const bound = this.options.maxStalenessMs;
    return bound != null && this.pinned() === null && this.stalenessMs() > bound;
  }

  /**
   * /refresh: a Reader adopts the newest state the writer committed; `adopted` says whether its
   * commit version moved. A writer or an in-memory store answers `{adopted: false}`. Reads never
   * refresh on their own.
   */
  async refresh(o?: CallOptions): Promise<{ adopted: boolean }> {
    // One refresh at a time: a pull must not change the directory while the core loads from it.
    return this.refreshes.run(async () => {
      if (this.pull && this.pinned() === null) await this.pull();
      const result = json(await call(o, () => this.core.refresh())) as { adopted: boolean };
      this.refreshedAt[0] = Date.now();
      return result;
    });
  }

  /**
   * A lazy reader (opened with `resident`) holds these collections' rows from now on (null: every
   * collection), loading the newest state in its directory afresh. 400 on a writer or a pinned handle.
   */
  async setResident(names: string[] | null, o?: CallOptions): Promise<void> {
    if (names !== null) checkNames(names, 'setResident()');
    await call(o, () => this.core.setResident(names));
  }

  /**
   * A writer opened with `resident`: opens the named collections' segments from the files the
   * manifest names, which the caller brought into the store directory (cluster mode's cache fetches
   * them from the object store).
   */
  async hold(names: string[], o?: CallOptions): Promise<void> {
    checkNames(names, 'hold()');
    await call(o, () => this.core.hold(names));
  }

  /**
   * A writer opened with `resident`: lets the named collections' rows go (their files may then be
   * removed once the copy named by the last manifest is safe elsewhere). A collection whose rows
   * changed since the last checkpoint is checkpointed first, so the manifest names every row.
   */
  async release(names: string[], o?: CallOptions): Promise<void> {
    checkNames(names, 'release()');
    await call(o, () => this.core.release(names));
  }

  /**
   * The resident collections, each with when a read (or, on a writer, an upsert or delete) last
   * needed its rows (microseconds of a monotonic clock; 0 when none did since the collection was
   * loaded: opened, refreshed onto a new checkpoint, or made resident): a cache holding some
   * collections drops the ones used longest ago.
   */
  async collectionReads(o?: CallOptions): Promise<Record<string, number>> {
    return json(await call(o, () => this.core.collectionReads())) as Record<string, number>;
  }

  /**
   * Cluster mode's shipping point, taken between writes: the writer's manifest generation (it
   * moves with every manifest written, and only a new manifest empties the log), MANIFEST's text,
   * the files it names and the log's length. A writer on disk only (400 otherwise).
   */
  async replication(o?: CallOptions): Promise<ReplicationPoint> {
    return json(await call(o, () => this.core.replication()));
  }

  /**
   * Moves a read-only handle (a Reader) to a past version, which it then serves pinned: writes
   * answer 403 and `refresh()` `{adopted: false}`. Rejects with 400 naming the oldest readable
   * version when the version's files are gone; the state served before stays.
   */
  async pin(version: number, o?: CallOptions): Promise<{ pinned: number }> {
    if (!Number.isSafeInteger(version) || version < 0) throw new StoreError(400, `version must be a whole number from 0, got ${version}`);
    return json(await call(o, () => this.core.pin(version)));
  }

  /** Counters as of the last commit. Reads memory only (for metrics). */
  footprintCached(): NativeFootprint {
    return this.core.footprint();
  }

  async stats(o?: CallOptions): Promise<Stats> {
    const stats: Stats = json(await call(o, () => this.core.stats()));
    const features = storeExtensions().flatMap((e) => (e.enabled && e.feature !== null ? [e.feature] : []));
    return { ...stats, features };
  }

  /**
   * Why a write would be refused now, as the core answers every write: 409 a Reader (another
   * process holds the writer lock), 403 pinned or opened read-only, 503 poisoned or closed; null
   * when it writes. What a caller asks before work that precedes its write (an embedding).
   */
  writeRefusal(): StoreError | null {
    const refusal = this.core.writeRefusal();
    return refusal === null ? null : toStoreError(refusal);
  }

  /** Whether writes are refused: opened read-only, a Reader, or serving a pinned version. */
  get readOnly(): boolean {
    return this.options.readOnly === true || this.role === 'Reader' || this.pinned() !== null;
  }

  /** What the extensions get of this store beside its public methods (lib/store/extension.ts). */
  private internals(): StoreInternals {
    return {
      upsertStamped: async (name, body, o) => json(await call(o, () => this.core.upsertStamped(name, bodyBytes(body)))),
      reinforce: async (name, body, o) => json(await call(o, () => this.core.reinforce(name, bodyBytes(body)))),
      searchVectorJson: async (body, query, o) => read(o, (token) => this.core.searchVector(bodyBytes(body), query, token)),
      rerankWindow: async (route, body, o) => {
        const window = await call(o, (token) => this.core.rerankWindow(route, bodyBytes(body), token));
        return {
          reranks: window.reranks(),
          query: window.query(),
          texts: window.texts(),
          finish: async (scores, options) => {
            try {
              return await call(options, (token) => window.finish(Float64Array.from(scores), token));
            } finally {
              window.close();
            }
          },
          close: () => window.close(),
        };
      },
      indexesBuilt: async (o) => {
        // Polled, not waited for in the core: a wait there would hold one of its few blocking
        // threads (writes') for as long as a build runs. Then the core waits for the saves alone.
        while (this.core.footprint().index_builds_pending > 0) {
          if (isCancelled(o)) throw cancelledError();
          await new Promise((resolve) => setTimeout(resolve, BUILDS_POLL_MS));
        }
        await call(o, () => this.core.waitForIndexBuilds());
      },
      backupPoint: async (o) => json<BackupPoint>(await call(o, () => this.core.backupPoint())),
      inBackupTurn: async (work) => {
        await call(undefined, () => this.core.beginBackup());
        try {
          return await work();
        } finally {
          await call(undefined, () => this.core.endBackup()).catch(() => undefined);
        }
      },
    };
  }

  /** Streams every live record from one snapshot, as pieces of a JSON array. */
  async recordsCursor(name: string, o?: CallOptions): Promise<RecordsCursor> {
    return new RecordsCursor(await call(o, () => this.core.records(name)));
  }

  /** Every live record; Int and DateTime values come back as bigint. */
  async records(name: string, o?: CallOptions): Promise<StoredRecord[]> {
    const cursor = await this.recordsCursor(name, o);
    const pieces: Buffer[] = [];
    try {
      for (let piece = await cursor.next(); piece !== null; piece = await cursor.next()) {
        if (isCancelled(o)) throw cancelledError();
        pieces.push(piece);
      }
    } finally {
      cursor.close();
    }
    return parseExact(Buffer.concat(pieces));
  }

  /**
   * The live records of `ids` in one collection, without vectors, in the order asked, each id once;
   * absent ids are left out, a missing collection is 404. Found by id (sealed segments' id index).
   */
  async get(name: string, ids: string[] | Uint8Array, o?: CallOptions): Promise<{ id: string; attrs: StoredRecord['attrs'] }[]> {
    const body = ids instanceof Uint8Array ? ids : bodyBytes({ ids });
    return parseExact(await call(o, () => this.core.get(name, body)));
  }

  /**
   * A read route's raw body in, its answer's JSON bytes out: the bytes themselves when the core ran
   * the read on this thread (a read of a small store: native/src/query/inline_estimate.h), else a
   * promise of them; a failure is always a rejected promise. The HTTP routes answer from it with
   * no promise per request; the `...Json` methods are its promise form.
   */
  readJson(route: RawRead, body: Uint8Array, o?: CallOptions): Buffer | Promise<Buffer> {
    if (!RAW_READS.includes(route)) return Promise.reject(new StoreError(400, `unknown read route '${route}'; one of ${RAW_READS.join(', ')}`));
    for (const extension of storeExtensions()) {
      const answer = extension.read?.(this, route, body, o);
      if (answer !== undefined) return answer;
    }
    return read(o, (token) => this.core[route](body, token));
  }

  /** Raw /search body in, the hit array as JSON bytes out. */
  async searchJson(body: Uint8Array, o?: CallOptions): Promise<Buffer> {
    return this.readJson('search', body, o);
  }

  /** Nearest-neighbour search; Int and DateTime values come back as bigint. With `plan: true`, `{hits, plan}`. */
  async search(body: SearchRequest & { plan: true }, o?: CallOptions): Promise<PlannedHits>;
  async search(body: SearchRequest | Uint8Array, o?: CallOptions): Promise<Hit[]>;
  async search(body: SearchRequest | Uint8Array, o?: CallOptions): Promise<Hit[] | PlannedHits> {
    if (!(body instanceof Uint8Array) && body.query instanceof Float32Array && !body.rerank) {
      // A Float32Array query travels as floats beside the rest of the body: no number text at all.
      const { query, ...rest } = body;
      return parseExact(await read(o, (token) => this.core.searchVector(bodyBytes(rest), query, token)));
    }
    return parseExact(await this.searchJson(bodyBytes(body), o));
  }

  /**
   * /search run now, on this thread, when the core estimates that it reads at most 4 MiB of vectors
   * and codes (kSyncMaxBytes, about 250 µs here: an indexed walk at the default ef_search, or an
   * exact scan of a few thousand rows): its hits, as `search` answers them, or with `arrays` as
   * parallel arrays of collections, ids and scores (no attributes; no plan or expand). null when it
   * would cost more (a large segment whose index is not built yet, a filter, diversity, limit_per,
   * an expand with a radius, a rerank, more than 256 hits), or reads a collection this handle does
   * not hold (`resident`): then `await search(body)`. No promise,
   * no wait for a query thread; a bad body throws the StoreError `search` rejects with.
   */
  searchSync(body: SearchRequest | Uint8Array, options: { arrays: true }): HitArrays | null;
  searchSync(body: SearchRequest & { plan: true }): PlannedHits | null;
  searchSync(body: SearchRequest | Uint8Array): Hit[] | null;
  searchSync(body: SearchRequest | Uint8Array, options?: { arrays?: boolean }): Hit[] | PlannedHits | HitArrays | null {
    const arrays = options?.arrays === true;
    let answer: Buffer | HitArrays | null;
    try {
      if (!(body instanceof Uint8Array) && body.query instanceof Float32Array && !body.rerank) {
        const { query, ...rest } = body;
        answer = this.core.searchSync(bodyBytes(rest), query, arrays);
      } else {
        const bytes = bodyBytes(body);
        if (storeExtensions().some((e) => e.takes?.('search', bytes))) return null;
        answer = this.core.searchSync(bytes, undefined, arrays);
      }
    } catch (e) {
      // A collection this handle does not hold: search() fetches it (fetchCollections), or says so.
      if (notResidentOf(e)) return null;
      throw toStoreError(e);
    }
    return answer === null || arrays ? (answer as HitArrays | null) : parseExact(answer as Buffer);
  }

  /** Deletes every entry of every collection whose `svc.expires_at` has passed. */
  async sweepExpired(o?: CallOptions): Promise<{ deleted: number }> {
    return json(await call(o, () => this.core.sweepExpired()));
  }

  /** Resolves once no background work (a vector index build, a compaction, a save of derived files) is queued or running. */
  async waitForIndexes(o?: CallOptions): Promise<{ ok: true }> {
    return json(await call(o, () => this.core.waitForIndexes()));
  }

  /** Checkpoints and releases the writer lock. Later calls fail with 503. */
  async close(): Promise<void> {
    await call(undefined, () => this.core.close());
  }

  /**
   * Flushes a writer's buffered state, then closes, even when the flush fails (acknowledged writes
   * are durable already: a failed flush only leaves more log to replay at the next open).
   */
  async shutdown(): Promise<void> {
    try {
      if (!this.readOnly) await this.flush();
    } finally {
      await this.close();
    }
  }

  /**
   * Test hook, present only with TESSERA_TEST_FAULTS=1: the next write fails inside the write lock
   * (`poison-next-write`, poisoning the store) or runs out of memory while it is prepared (507, that
   * batch only) or applied (507, poisoned); or the next compaction fails before its switch
   * (abandoned) or inside it (poisoning the store); or no background compaction starts until the
   * store is reopened (`compactions-held`).
   */
  _injectFault(kind: Fault): void {
    if (process.env.TESSERA_TEST_FAULTS !== '1') throw new StoreError(404, 'fault injection is disabled');
    if (kind in COMPACTION_FAULTS) this.core.injectCompactionFault(COMPACTION_FAULTS[kind as keyof typeof COMPACTION_FAULTS]);
    else if ((WRITE_FAULTS as readonly string[]).includes(kind)) this.core.injectWriteFault(kind);
    else throw new StoreError(400, `unknown fault ${kind}`);
  }
}
