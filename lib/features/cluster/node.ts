// ClusterNode: one member of a store kept in an object store (cluster mode). A writer holds the
// writer lease, restores the published state into its local directory, opens it, and ships every
// write before it is acknowledged (`durable`); a standby waits for the lease first. A reader
// restores, opens read-only, and pulls newer published state on refresh.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../../store/errors';
import { Store } from '../../store/store';
import type { ClusterStatus, OpenOptions } from '../../types';
import { CollectionCache } from './collection_cache';
import { claimCurrent, readCurrent, type Restored } from './current';
import { transient } from './errors';
import type { GarbageCollector } from './garbage';
import { WriterLease } from './lease';
import type { ObjectStore } from './object_store';
import { type RestoreOptions, restore } from './restore';
import { Shipper } from './shipper';

export interface ClusterOptions {
  objects: ObjectStore;
  /** Key prefix of the store in its bucket, without a trailing slash. */
  prefix: string;
  /** Where it is named in messages: `s3://bucket/prefix`. */
  location: string;
  /** The local directory the published state is restored into and served from. */
  dir: string;
  reader: boolean;
  /** A writer whose lease another holds waits for it rather than refusing to start. */
  standby: boolean;
  leaseTtlMs: number;
  /** How long an object no published state names stays before the writer deletes it (garbage.ts). */
  gcGraceMs?: number;
  /** Open options of the local store (its path is `dir`). */
  open: Omit<OpenOptions, 'path' | 'inMemory' | 'pull'>;
  /**
   * A bound on the segment files the node keeps in `dir`: it then fetches a collection's files on
   * the first call that needs them (collection_cache.ts). Default: every file, restored at start.
   */
  cacheBytes?: number;
  /**
   * How often a reader started before anything was published looks again, and a standby pulls
   * what the writer published (default 1 s): a standby's copy lags by at most this plus one pull.
   */
  pollMs?: number;
}

export class ClusterNode {
  /** This process's lease owner id. */
  private readonly owner = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly lease: WriterLease | null;
  private shipper: Shipper | null = null;
  private restored: Restored | null = null;
  private storeOpen: Store | null = null;
  private waitingFor: string | null;
  /** The bounded copy (cacheBytes), else null: the whole store is restored. */
  readonly cache: CollectionCache | null;
  /** The generation the cache last settled after (a writer's). */
  private settledGeneration = -1;

  constructor(private readonly options: ClusterOptions) {
    this.waitingFor = `joining the cluster at ${options.location}`;
    this.lease = options.reader
      ? null
      : new WriterLease({ store: options.objects, key: `${options.prefix}/lease.json`, owner: this.owner, ttlMs: options.leaseTtlMs });
    const { objects, prefix, dir, cacheBytes } = options;
    if (cacheBytes !== undefined && !options.reader && (options.open.historyVersions ?? 0) > 0)
      throw new StoreError(400, "cacheBytes bounds a writer that keeps no history: historyVersions needs every collection's files");
    this.cache = cacheBytes === undefined ? null : new CollectionCache({ objects, prefix, dir, bytes: cacheBytes });
  }

  /** The store once serving, else null. */
  get store(): Store | null {
    return this.storeOpen;
  }

  /** Why the node cannot serve yet (standby, waiting for a first publish), or null once serving. */
  get waiting(): string | null {
    return this.waitingFor;
  }

  /** A writer's sweep of unnamed objects, once it serves; else null. */
  get garbage(): GarbageCollector | null {
    return this.shipper?.garbage ?? null;
  }

  /** Superseded: the lease found another holder, or CURRENT changed under this writer. */
  get fenced(): boolean {
    return this.lease?.fenced === true || this.shipper?.fencedBy != null;
  }

  /** Joins the cluster; resolves once the store serves. */
  async start(signal?: AbortSignal): Promise<Store> {
    return this.options.reader ? this.startReader(signal) : this.startWriter(signal);
  }

  /**
   * A writer: takes the lease (a standby waits for it, its copy following the writer meanwhile),
   * restores the newest published state and claims it, opens, and publishes at once. `signal`
   * (a shutdown) ends the wait, and a lease taken meanwhile is handed back: a process that is
   * exiting never serves as the writer.
   */
  private async startWriter(signal?: AbortSignal): Promise<Store> {
    const lease = this.lease as WriterLease;
    const { location, objects, prefix, dir, open } = this.options;
    await objects.createBucket();
    if (!(await lease.tryAcquire())) {
      if (!this.options.standby) throw new StoreError(409, `the writer lease of ${location} is held by another writer; start with --standby to wait for it`);
      this.waitingFor = `standby: waiting for the writer lease of ${location}`;
      // Meanwhile the local copy follows what the writer publishes, so taking over fetches only the tail.
      const following = new Following((options) => this.pull(options), this.options.pollMs ?? 1000);
      try {
        await lease.waitForLease(signal);
      } finally {
        await following.end(async () => (await readCurrent(objects, prefix).catch(() => null))?.etag ?? null);
      }
    }
    this.waitingFor = 'restoring the published state';
    let store: Store | null = null;
    const cache = this.cache;
    try {
      signal?.throwIfAborted();
      const base = await this.claim(lease, signal);
      const lazy = cache && { resident: cache.resident(), fetchCollections: (names: string[]) => cache.ensure(names) };
      store = await Store.open({ ...open, path: dir, ...lazy });
      const shipper = new Shipper({
        store,
        dir,
        objects,
        prefix,
        epoch: lease.epoch,
        base,
        lease: { confirm: async () => lease.held() || lease.renewNow(), verify: () => lease.verify() },
        gcGraceMs: this.options.gcGraceMs,
      });
      this.shipper = shipper;
      lease.on('fenced', (by: string | null) =>
        shipper.fence(`this writer was superseded${by ? ` by ${by}` : ''} (fenced); send writes to the current writer`),
      );
      // Publishing under this epoch at once: the state this writer serves is in the object store.
      await shipper.sync();
      signal?.throwIfAborted();
      cache?.attach(store, { published: () => shipper.published(), durable: () => this.durable() });
    } catch (err) {
      // A writer that cannot start hands the lease on at once rather than holding it for a TTL.
      await this.shipper?.close();
      await store?.close().catch(() => undefined);
      await lease.release();
      throw err;
    }
    this.storeOpen = store;
    this.waitingFor = null;
    return store;
  }

  /**
   * Restores the newest published state and claims it under this writer's epoch (current.ts,
   * claimCurrent); a predecessor's late publish in between means restoring again. Null when nothing
   * was published: the first publish then creates CURRENT.
   */
  private async claim(lease: WriterLease, signal?: AbortSignal): Promise<Restored | null> {
    const { objects, prefix } = this.options;
    for (;;) {
      await this.pull({ signal });
      const restored = this.restored;
      if (restored === null) return null;
      // A claim is a publish: only under a lease this writer holds, at an epoch past the state's.
      if (!lease.held() && !(await lease.renewNow()))
        throw new StoreError(503, `the writer lease of ${this.options.location} was lost while this writer restored`);
      if (restored.record.epoch >= lease.epoch)
        throw new StoreError(
          500,
          `the writer lease of ${this.options.location} is at epoch ${lease.epoch}, not past the published state's ${restored.record.epoch}: its lease object was deleted or replaced; refusing to publish under a reused epoch`,
        );
      const claimed = await claimCurrent(objects, prefix, restored, lease.epoch);
      if (claimed) {
        this.restored = claimed;
        return claimed;
      }
    }
  }

  private async startReader(signal?: AbortSignal): Promise<Store> {
    const { dir, open, location } = this.options;
    this.waitingFor = `waiting for a writer to publish ${location}`;
    for (;;) {
      try {
        await this.pull({ signal });
        if (this.restored) break;
      } catch (err) {
        // A missing object (the writer collected what this restore read) or a failing store: the
        // next try reads the newest CURRENT; meanwhile routes answer 503 saying why.
        if (!transient(err)) throw err;
        this.waitingFor = `restoring the published state of ${location} failed (${(err as Error).message}); retrying`;
      }
      await sleep(this.options.pollMs ?? 1000, undefined, { signal });
    }
    const cache = this.cache;
    const lazy = cache && { resident: cache.resident(), fetchCollections: (names: string[]) => cache.ensure(names) };
    const store = await Store.open({ ...open, path: dir, readOnly: true, pull: () => this.pull(), ...lazy });
    cache?.attach(store);
    this.storeOpen = store;
    this.waitingFor = null;
    return store;
  }

  /**
   * The directory catches up with what was published since (a reader's refresh, a standby's
   * follow, a writer's restore). Its callers run one at a time (Store.refresh, the reader's start,
   * the standby's follow loop, then its claim); an abandoned pull leaves `restored` as it was.
   */
  private async pull(options: Pick<RestoreOptions, 'signal' | 'reading'> = {}): Promise<void> {
    const { objects, prefix, dir } = this.options;
    this.restored = this.cache ? await this.cache.pull(options) : await restore(objects, prefix, dir, { ...options, previous: this.restored });
  }

  /**
   * A writer's acknowledgement: resolves once every write the store committed so far is in the
   * object store. A bounded writer's cache settles after a publish of a new generation (its new
   * files count against the bound), without holding the acknowledgement back.
   */
  async durable(): Promise<void> {
    const shipper = this.shipper;
    if (!shipper) throw new StoreError(503, 'this instance does not write the cluster store');
    await shipper.sync();
    if (this.cache && shipper.publishedGeneration !== this.settledGeneration) {
      this.settledGeneration = shipper.publishedGeneration;
      void this.cache.settleSoon().catch(() => undefined);
    }
  }

  /** /cluster. */
  status(): ClusterStatus {
    const store = this.storeOpen;
    const local = store?.cluster();
    const held = this.lease?.held() === true && !this.fenced;
    return {
      role: this.options.reader ? 'ClusterReader' : 'ClusterWriter',
      cluster: true,
      holds_writer_handle: held,
      fenced: this.fenced,
      lease_owner: held ? (this.lease?.token ?? null) : null,
      commit_version: local?.commit_version ?? 0,
      staleness_secs: local?.staleness_secs ?? 0,
      max_staleness_secs: local?.max_staleness_secs ?? null,
    };
  }

  /**
   * Closes the store; a writer then hands the lease over, so a standby takes over at once (a
   * poisoned writer's restart included). What it acknowledged is in the object store already.
   */
  async close(): Promise<void> {
    try {
      await this.shipper?.close();
      await this.storeOpen?.close();
    } finally {
      await this.lease?.release();
    }
  }
}

/**
 * A standby's local copy following what the writer publishes, one pull per `pollMs`, until ended.
 * Its lag is at most `pollMs` plus one pull.
 */
class Following {
  private readonly abandon = new AbortController();
  private ending = false;
  /** The ETag of the CURRENT the pull under way restores, or null between pulls. */
  private reading: string | null = null;
  private readonly done: Promise<void>;

  constructor(
    private readonly pull: (options: Pick<RestoreOptions, 'signal' | 'reading'>) => Promise<void>,
    private readonly pollMs: number,
  ) {
    this.done = this.run();
  }

  /**
   * Ends it once the lease is taken: a pull under way that restores the newest CURRENT (`newest`)
   * is let finish, as the claim needs what it reads; one restoring a superseded CURRENT, or any
   * when the newest cannot be told, is abandoned mid-request.
   */
  async end(newest: () => Promise<string | null>): Promise<void> {
    this.ending = true;
    const reading = this.reading;
    if (reading === null || reading !== (await newest())) this.abandon.abort();
    await this.done;
  }

  private async run(): Promise<void> {
    const { signal } = this.abandon;
    while (!this.ending && !signal.aborted) {
      // A failed pull is tried again on the next turn; taking over restores anyway.
      await this.pull({ signal, reading: (etag) => (this.reading = etag) }).catch(() => undefined);
      this.reading = null;
      if (this.ending) break;
      await sleep(this.pollMs, undefined, { signal }).catch(() => undefined);
    }
  }
}
