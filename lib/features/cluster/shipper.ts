// The writer's side of replication: it ships what the store commits to the object store (layout
// in current.ts), and a write is acknowledged only once shipped under a confirmed lease.
//
// A write is durable in the object store once the chunk holding its log record landed (or, after a
// checkpoint moved it into segments, once CURRENT names them). The core's replication point
// (Store.replication) says which manifest generation the log belongs to, so a chunk is never cut
// from a log a checkpoint emptied under the reader.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Store } from '../../store/store';
import type { ReplicationPoint } from '../../types';
import { chunkKey, type CurrentRecord, type Published, replaceCurrent, type Restored } from './current';
import { OutcomeUnknown, PreconditionFailed } from './errors';
import { DEFAULT_GC_GRACE_MS, GarbageCollector } from './garbage';
import type { ObjectStore } from './object_store';
import { LOG } from './restore';
import { eachLimited, RANGE_BYTES, TRANSFER_CONCURRENCY } from './transfers';

/** A writer lost its place: its lease, or CURRENT changed under it. Every later write fails. */
export class Fenced extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Fenced';
  }
}

/** A round shipped, but the lease could not be confirmed: not acknowledged, and the next round may be. */
export class Unconfirmed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unconfirmed';
  }
}

/** Reads bytes [from, to) of a file. */
async function readRange(file: string, from: number, to: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const out = Buffer.alloc(to - from);
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await handle.read(out, done, out.length - done, from + done);
      if (bytesRead === 0) throw new Error(`${file} ended at ${from + done}, before ${to}`);
      done += bytesRead;
    }
    return out;
  } finally {
    await handle.close();
  }
}

/** Attempts of a create-only put whose earlier attempt's outcome was unknown. */
const PUT_ATTEMPTS = 3;

/**
 * A create-only put, repeated after an unknown outcome: only this writer names the key, so a 412
 * on a repeat means an earlier attempt landed.
 */
async function putOnce(objects: ObjectStore, key: string, body: Uint8Array): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await objects.put(key, body, { ifNoneMatch: '*' });
      return;
    } catch (err) {
      if (err instanceof PreconditionFailed && attempt > 1) return;
      if (!(err instanceof OutcomeUnknown) || attempt === PUT_ATTEMPTS) throw err;
    }
  }
}

/** What the writer's lease tells the shipper. */
export interface LeaseProof {
  /**
   * Whether the lease still holds, checked before a round counts as durable. A lease whose last
   * renewal is older than its TTL renews at once: a renewal that lands proves nobody took over.
   */
  confirm(): Promise<boolean>;
  /** Whether the lease object, read back, still shows this writer holding it (before a sweep deletes). */
  verify(): Promise<boolean>;
}

export interface ShipperOptions {
  store: Store;
  /** The store's directory. */
  dir: string;
  objects: ObjectStore;
  /** Key prefix of this store, without a trailing slash. */
  prefix: string;
  /** The writer lease's epoch: the fencing token of everything this writer publishes. */
  epoch: number;
  /** What this writer restored from and claimed (claimCurrent; null: the store is new). */
  base: Restored | null;
  lease: LeaseProof;
  /** How long an object stays unnamed before the sweep deletes it (default DEFAULT_GC_GRACE_MS). */
  gcGraceMs?: number;
}

/**
 * The writer's side: `sync()` resolves once everything the store committed before the call is in
 * the object store. Calls while a round runs share the next round (group commit).
 */
export class Shipper {
  private generation = -1;
  private shipped = 0;
  private seq = 0;
  private log = '';
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private fenced: Fenced | null = null;
  /** CURRENT as this writer last wrote it (its claim before its first publish), or null; a new object per publish. */
  private current: Published | null;
  /** Keys uploaded (or being uploaded) for a publish whose CURRENT has not landed yet: the sweep spares them. */
  private readonly unpublished = new Set<string>();
  readonly garbage: GarbageCollector;
  /** The sweep running, if any; `sweepAgain` asks it for one more pass (a publish landed meanwhile). */
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;

  constructor(private readonly options: ShipperOptions) {
    this.current = options.base ? { record: options.base.record, etag: options.base.etag } : null;
    const { objects, prefix, lease, gcGraceMs = DEFAULT_GC_GRACE_MS } = options;
    this.garbage = new GarbageCollector({
      objects,
      prefix,
      graceMs: gcGraceMs,
      verifyLease: () => lease.verify(),
      // The claimed CURRENT is this writer's too: a successor sweeps from its claim on.
      published: () => this.current,
      unpublished: () => this.unpublished,
    });
  }

  /** Why this writer may not write any more, or null. */
  get fencedBy(): Fenced | null {
    return this.fenced;
  }

  /** The state this writer published last (before its first publish, the one it restored), or null. */
  published(): CurrentRecord | null {
    return this.current?.record ?? null;
  }

  /** File name -> object key of what this writer's newest CURRENT names: what needs no upload. */
  private get shippedFiles(): Record<string, string> {
    return this.current?.record.files ?? {};
  }

  /** The store's manifest generation this writer published last (-1 before its first publish). */
  get publishedGeneration(): number {
    return this.generation;
  }

  sync(): Promise<void> {
    if (this.fenced) return Promise.reject(this.fenced);
    if (!this.running && !this.next) return this.start();
    // The running round may have read the log before this caller's write: it joins the next (also
    // in the moment between a round's end and the start of the next, so rounds never overlap).
    this.next ??= (this.running ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.start();
      });
    return this.next;
  }

  /** Resolves once the sweeps asked for so far have run (a test's way to see what they did). */
  async swept(): Promise<void> {
    while (this.sweeping) await this.sweeping;
  }

  /** Stops the sweep (a closing writer deletes nothing more) and waits for it to settle. */
  async close(): Promise<void> {
    this.garbage.stop();
    await this.sweeping;
  }

  /** Latches fenced, and stops the sweep: a superseded writer deletes nothing. */
  fence(message: string): Fenced {
    this.fenced ??= new Fenced(message);
    this.garbage.stop();
    return this.fenced;
  }

  private start(): Promise<void> {
    this.running = this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const { store, dir } = this.options;
    for (;;) {
      const point = await store.replication();
      const fresh = point.generation !== this.generation;
      const from = fresh ? this.inherited(point) : this.shipped;
      const bytes = point.log_bytes > from ? await readRange(path.join(dir, LOG), from, point.log_bytes) : null;
      // A checkpoint between the two points may have emptied the log under the read: read again.
      if ((await store.replication()).generation !== point.generation) continue;
      try {
        if (fresh) {
          await this.publish(point, from, bytes);
        } else {
          if (bytes) this.seq = await this.putChunks(this.log, this.seq, bytes, false);
          // Derived files (an index, an id map) the writer saved after this generation was published.
          if (point.files.some((name) => !(name in this.shippedFiles))) await this.republish(point);
        }
      } catch (err) {
        // A segment file a compaction removed before it was uploaded: its manifest is superseded.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      this.shipped = point.log_bytes;
      // Past its lease a writer may have been superseded unseen: what it shipped may never be read.
      if (await this.options.lease.confirm()) return;
      if (this.fenced) throw this.fenced;
      throw new Unconfirmed('the writer lease is not confirmed (the object store did not answer its renewal in time); the write is not acknowledged');
    }
  }

  /**
   * Where a new generation's log starts shipping: past the log this writer restored, for its first
   * generation (no manifest written since it opened, so its log still begins with those bytes);
   * else at 0.
   */
  private inherited(point: ReplicationPoint): number {
    const base = this.options.base;
    return this.generation === -1 && base && base.record.generation === point.generation && base.logBytes <= point.log_bytes ? base.logBytes : 0;
  }

  /** A new manifest generation: its files, the first chunk of its log, then CURRENT naming them. */
  private async publish(point: ReplicationPoint, from: number, bytes: Buffer | null): Promise<void> {
    const files = await this.upload(point);
    const log = `${this.options.prefix}/log/${this.options.epoch}/${point.generation}/`;
    const seq = bytes ? await this.putChunks(log, 0, bytes, true) : 0;
    const base = this.options.base;
    const predecessor = from > 0 && base ? base.record.logs.map((part, i, all) => (i === all.length - 1 ? { ...part, chunks: base.chunks } : part)) : [];
    await this.putCurrent({
      format: 1,
      epoch: this.options.epoch,
      generation: point.generation,
      manifest: point.manifest,
      files,
      logs: [...predecessor, { prefix: log }],
    });
    this.generation = point.generation;
    this.log = log;
    this.seq = seq;
  }

  /** The same generation with files that appeared since it was published. */
  private async republish(point: ReplicationPoint): Promise<void> {
    const files = await this.upload(point);
    await this.putCurrent({ ...(this.current as Published).record, files });
  }

  /**
   * Uploads the point's files not uploaded yet; answers the name -> key map of all of them. Each
   * file is read whole, so files within one range go several at once (at most
   * TRANSFER_CONCURRENCY x RANGE_BYTES in memory) and a larger one goes alone.
   */
  private async upload(point: ReplicationPoint): Promise<Record<string, string>> {
    const { prefix, epoch, dir } = this.options;
    const shipped = this.shippedFiles;
    const files: Record<string, string> = {};
    const small: string[] = [];
    const large: string[] = [];
    // A collection this writer does not hold keeps the files it shipped before.
    for (const name of point.cold) if (shipped[name] !== undefined) files[name] = shipped[name];
    for (const name of point.files) {
      const uploaded = shipped[name];
      files[name] = uploaded ?? `${prefix}/files/${epoch}/${name}`;
      if (uploaded !== undefined) continue;
      const { size } = await fs.stat(path.join(dir, name));
      (size <= RANGE_BYTES ? small : large).push(name);
    }
    const put = async (name: string) => {
      try {
        await this.putUnpublished(files[name], await fs.readFile(path.join(dir, name)));
      } catch (err) {
        // Keys of this epoch are this writer's alone: one already there was put by an earlier round
        // that started over before publishing (a compaction removed a file under it).
        if (!(err instanceof PreconditionFailed)) throw err;
      }
    };
    await eachLimited(small, TRANSFER_CONCURRENCY, put);
    for (const name of large) await put(name);
    checkComplete(point.manifest, files);
    return files;
  }

  /** Replaces CURRENT under If-Match on what this writer last saw there; a mismatch fences it. */
  private async putCurrent(record: CurrentRecord): Promise<void> {
    if (this.fenced) throw this.fenced;
    const etag = await replaceCurrent(this.options.objects, this.options.prefix, record, this.current?.etag ?? null);
    if (etag === null) throw this.fence('CURRENT changed under this writer: another writer published; this one is fenced');
    this.current = { record, etag };
    // Rounds run one at a time: whatever was uploaded for a publish, this one names.
    this.unpublished.clear();
    this.sweepSoon();
  }

  /** A create-only put of an object the next publish names; the sweep spares it until then. */
  private async putUnpublished(key: string, body: Uint8Array): Promise<void> {
    this.unpublished.add(key);
    await putOnce(this.options.objects, key, body);
  }

  /**
   * Puts the log bytes `bytes` as chunk `seq` of `log` (`unpublished`: of a part no CURRENT names
   * yet); resolves the sequence number after the last chunk put. A chunk already there under that
   * key was put by an earlier round that failed after it (an unknown outcome, a refused CURRENT):
   * the log only grows, so it holds a prefix of these bytes, and the rest goes on as the next
   * chunk. Without that, every later round would be refused the same key until a checkpoint.
   */
  private async putChunks(log: string, seq: number, bytes: Buffer, unpublished: boolean): Promise<number> {
    const key = chunkKey(log, seq);
    if (unpublished) this.unpublished.add(key);
    try {
      await putOnce(this.options.objects, key, bytes);
      return seq + 1;
    } catch (err) {
      if (!(err instanceof PreconditionFailed)) throw err;
      const landed = (await this.options.objects.get(key)).body;
      if (landed.length > bytes.length || !landed.equals(bytes.subarray(0, landed.length))) throw err;
      return landed.length === bytes.length ? seq + 1 : this.putChunks(log, seq + 1, bytes.subarray(landed.length), unpublished);
    }
  }

  /**
   * A sweep after a publish, beside the writes (their acknowledgement never waits for it); one at
   * a time, a publish during one asking it for one more pass. A failed sweep is repeated after
   * the next publish.
   */
  private sweepSoon(): void {
    this.sweepAgain = true;
    if (!this.sweeping) this.sweeping = this.sweepWhileAsked();
  }

  private async sweepWhileAsked(): Promise<void> {
    try {
      while (this.sweepAgain && !this.fenced) {
        this.sweepAgain = false;
        await this.garbage.sweep().catch(() => undefined);
      }
    } finally {
      this.sweeping = null;
    }
  }
}

/**
 * Refuses a publish whose files leave out one the manifest needs (a segment's rows, a deletion
 * bitmap): the sweep after it would delete that object while the manifest names it.
 */
function checkComplete(manifest: string, files: Record<string, string>): void {
  const { collections } = JSON.parse(manifest) as { collections: { segments: { id: number; deletions: string }[] }[] };
  for (const { segments } of collections) {
    for (const { id, deletions } of segments) {
      for (const name of [`seg-${id}.rows`, ...(deletions ? [deletions] : [])])
        if (files[name] === undefined)
          throw new Error(`refusing to publish: the manifest names ${name}, which is neither in the store directory nor shipped before`);
    }
  }
}
