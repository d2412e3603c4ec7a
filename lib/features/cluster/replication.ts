// Replication of one store directory through an object store, for cluster mode. The writer ships;
// a reader or a standby restores. Layout under the store's prefix:
//
//   CURRENT                          the newest published state (CurrentRecord), replaced only with
//                                    If-Match on the ETag its writer last saw: a writer that lost
//                                    its place cannot publish over its successor
//   files/<epoch>/<name>             HEADER and segment files, immutable, named by the epoch of the
//                                    writer that uploaded them (a successor reuses what it restored)
//   log/<epoch>/<generation>/<seq>   the log of one manifest generation, in chunks that concatenate
//                                    to a prefix of the writer's wal.log; a writer that took over
//                                    publishes its predecessor's chunks as the first part of its log
//                                    rather than uploading the log it restored again
//
// A write is durable in the object store once the chunk holding its log record landed (or, after a
// checkpoint moved it into segments, once CURRENT names them). The core's replication point
// (Store.replication) says which manifest generation the log belongs to, so a chunk is never cut
// from a log a checkpoint emptied under the reader.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Store } from '../../store/store';
import type { ReplicationPoint } from '../../types';
import { NotFound, ObjectStoreError, OutcomeUnknown, PreconditionFailed } from './errors';
import type { ObjectStore } from './object_store';

/** The published state: what a restorer needs to rebuild the store directory. */
export interface CurrentRecord {
  format: 1;
  /** Lease epoch of the writer that published it. */
  epoch: number;
  /** That writer's manifest generation (ReplicationPoint.generation). */
  generation: number;
  /** MANIFEST's text. */
  manifest: string;
  /** File name in the store directory -> object key. */
  files: Record<string, string>;
  /**
   * The log of this generation: parts whose chunks concatenate in order. Every part but the last
   * has its chunk count; the last grows, and is read until a chunk is missing.
   */
  logs: LogPart[];
}

export interface LogPart {
  /** Key prefix of its chunks. */
  prefix: string;
  /** Absent on the last, growing part. */
  chunks?: number;
}

export interface Published {
  record: CurrentRecord;
  etag: string;
}

/** The store's log file (native/src/storage/file_names.cc). */
const LOG = 'wal.log';

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

const chunkKey = (log: string, seq: number) => `${log}${String(seq).padStart(12, '0')}`;

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

/**
 * The prefix of a file being written under a temporary name (renamed once whole). A prefix, not a
 * suffix: the core's sweep of unnamed segment files (seg-*) must not take a fetch in flight.
 */
const TEMPORARY_PREFIX = 'replica-tmp.';
const temporary = (file: string) => path.join(path.dirname(file), `${TEMPORARY_PREFIX}${path.basename(file)}`);
export const isTemporary = (name: string) => name.startsWith(TEMPORARY_PREFIX);

/** Writes a file whole, under a temporary name first, so a reader never sees half of it. */
async function writeAtomic(file: string, body: Uint8Array): Promise<void> {
  const tmp = temporary(file);
  await fs.writeFile(tmp, body);
  await fs.rename(tmp, file);
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

export interface ShipperOptions {
  store: Store;
  /** The store's directory. */
  dir: string;
  objects: ObjectStore;
  /** Key prefix of this store, without a trailing slash. */
  prefix: string;
  /** The writer lease's epoch: the fencing token of everything this writer publishes. */
  epoch: number;
  /** What this writer restored from (null: the store is new). */
  base: Restored | null;
  /**
   * Whether the lease still holds, checked before a round counts as durable. A lease whose last
   * renewal is older than its TTL renews at once: a renewal that lands proves nobody took over.
   */
  confirmLease(): Promise<boolean>;
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
  private files: Record<string, string>;
  private etag: string | null;
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private fenced: Fenced | null = null;
  /** What this writer last published. */
  private record: CurrentRecord | null = null;
  /** The sweep after the last publish. */
  private collecting: Promise<void> = Promise.resolve();

  constructor(private readonly options: ShipperOptions) {
    this.files = { ...(options.base?.record.files ?? {}) };
    this.etag = options.base?.etag ?? null;
  }

  /** Why this writer may not write any more, or null. */
  get fencedBy(): Fenced | null {
    return this.fenced;
  }

  /** The state this writer published last (before its first publish, the one it restored), or null. */
  published(): CurrentRecord | null {
    return this.record ?? this.options.base?.record ?? null;
  }

  /** The store's manifest generation this writer published last (-1 before its first publish). */
  get publishedGeneration(): number {
    return this.generation;
  }

  sync(): Promise<void> {
    if (this.fenced) return Promise.reject(this.fenced);
    if (!this.running) return this.start();
    // The running round may have read the log before this caller's write: it joins the next.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.start();
      });
    return this.next;
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
          if (bytes) {
            await putOnce(this.options.objects, chunkKey(this.log, this.seq), bytes);
            this.seq++;
            this.shipped = point.log_bytes;
          }
          // Derived files (an index, an id map) the writer saved after this generation was published.
          if (point.files.some((name) => !(name in this.files))) await this.republish(point);
        }
      } catch (err) {
        // A segment file a compaction removed before it was uploaded: its manifest is superseded.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      this.shipped = point.log_bytes;
      // Past its lease a writer may have been superseded unseen: what it shipped may never be read.
      if (await this.options.confirmLease()) return;
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
    return this.generation === -1 && base && base.logBytes <= point.log_bytes ? base.logBytes : 0;
  }

  /** A new manifest generation: its files, the first chunk of its log, then CURRENT naming them. */
  private async publish(point: ReplicationPoint, from: number, bytes: Buffer | null): Promise<void> {
    await this.collecting;
    const files = await this.upload(point);
    const log = `${this.options.prefix}/log/${this.options.epoch}/${point.generation}/`;
    if (bytes) await putOnce(this.options.objects, chunkKey(log, 0), bytes);
    const base = this.options.base;
    const predecessor = from > 0 && base ? base.record.logs.map((part, i, all) => (i === all.length - 1 ? { ...part, chunks: base.chunks } : part)) : [];
    await this.putCurrent({ format: 1, epoch: this.options.epoch, generation: point.generation, manifest: point.manifest, files, logs: [...predecessor, { prefix: log }] });
    this.generation = point.generation;
    this.log = log;
    this.seq = bytes ? 1 : 0;
  }

  /** The same generation with files that appeared since it was published. */
  private async republish(point: ReplicationPoint): Promise<void> {
    await this.collecting;
    const files = await this.upload(point);
    await this.putCurrent({ ...(this.record as CurrentRecord), files });
  }

  /**
   * Uploads the point's files not uploaded yet; answers the name -> key map of all of them. Each
   * file is read whole, so files within one range go several at once (at most
   * TRANSFER_CONCURRENCY x RANGE_BYTES in memory) and a larger one goes alone.
   */
  private async upload(point: ReplicationPoint): Promise<Record<string, string>> {
    const { objects, prefix, epoch, dir } = this.options;
    const files: Record<string, string> = {};
    const small: string[] = [];
    const large: string[] = [];
    // A collection this writer does not hold keeps the files it shipped before.
    for (const name of point.cold) if (this.files[name] !== undefined) files[name] = this.files[name];
    for (const name of point.files) {
      const uploaded = this.files[name];
      files[name] = uploaded ?? `${prefix}/files/${epoch}/${name}`;
      if (uploaded !== undefined) continue;
      const { size } = await fs.stat(path.join(dir, name));
      (size <= RANGE_BYTES ? small : large).push(name);
    }
    const put = async (name: string) => {
      try {
        await putOnce(objects, files[name], await fs.readFile(path.join(dir, name)));
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
    const { objects, prefix } = this.options;
    try {
      const { etag } = await objects.put(`${prefix}/CURRENT`, JSON.stringify(record), this.etag === null ? { ifNoneMatch: '*' } : { ifMatch: this.etag });
      this.etag = etag;
    } catch (err) {
      if (err instanceof PreconditionFailed) throw this.fence('CURRENT changed under this writer: another writer published; this one is fenced');
      throw err;
    }
    this.record = record;
    this.files = record.files;
    // Acknowledgement does not wait for the sweep (a failed one is repeated at the next publish),
    // but the next publish does: the sweep must not take the files it uploads for unnamed ones.
    this.collecting = collectGarbage(objects, prefix, record).catch(() => undefined);
  }

  /** Latches fenced: the lease found this writer superseded. */
  fence(message: string): Fenced {
    this.fenced ??= new Fenced(message);
    return this.fenced;
  }
}

/**
 * Refuses a publish whose files leave out one the manifest needs (a segment's rows, a deletion
 * bitmap): the garbage collection after it would delete that object while the manifest names it.
 */
function checkComplete(manifest: string, files: Record<string, string>): void {
  const { collections } = JSON.parse(manifest) as { collections: { segments: { id: number; deletions: string }[] }[] };
  for (const { segments } of collections) {
    for (const { id, deletions } of segments) {
      for (const name of [`seg-${id}.rows`, ...(deletions ? [deletions] : [])])
        if (files[name] === undefined) throw new Error(`refusing to publish: the manifest names ${name}, which is neither in the store directory nor shipped before`);
    }
  }
}

/**
 * Deletes the objects under `prefix` that the newly published `record` does not name: files and
 * log chunks of superseded generations, and what a superseded writer uploaded but never published.
 * A restore that was reading the state before retries from the new CURRENT.
 */
async function collectGarbage(objects: ObjectStore, prefix: string, record: CurrentRecord): Promise<void> {
  const named = new Set(Object.values(record.files));
  const parts = record.logs.map((part) => part.prefix);
  const doomed: string[] = [];
  for await (const { key } of objects.listAll(`${prefix}/files/`)) if (!named.has(key)) doomed.push(key);
  for await (const { key } of objects.listAll(`${prefix}/log/`)) if (!parts.some((part) => key.startsWith(part))) doomed.push(key);
  await eachLimited(doomed, TRANSFER_CONCURRENCY, (key) => objects.delete(key));
}

/** What a restore left in the directory, so that the next one fetches only what changed. */
export interface Restored extends Published {
  /** Chunks of the last log part already in wal.log. */
  chunks: number;
  /** wal.log's length after the restore. */
  logBytes: number;
}

/** CURRENT as published, or null when nothing was published yet. */
export async function readCurrent(objects: ObjectStore, prefix: string): Promise<Published | null> {
  try {
    const { body, etag } = await objects.get(`${prefix}/CURRENT`);
    const record = JSON.parse(body.toString('utf8')) as CurrentRecord;
    if (record.format !== 1) throw new Error(`${prefix}/CURRENT has format ${record.format}; this version reads format 1`);
    return { record, etag };
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

/** Object keys of the files a restore left in the directory, so a restart fetches only what changed. */
const RESTORED = 'RESTORED.json';

/** Objects a restore fetches, a publish uploads or collection deletes at once. */
const TRANSFER_CONCURRENCY = 8;

/** The keys the directory's files were restored from (a previous process's restore included). */
async function restoredKeys(dir: string, previous: Restored | null): Promise<Record<string, string>> {
  return previous ? previous.record.files : readRestoredKeys(dir);
}

/** What RESTORED.json says the directory's files were restored from ({} when it says nothing). */
export async function readRestoredKeys(dir: string): Promise<Record<string, string>> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, RESTORED), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Records which files the directory holds, by the object keys they came from. */
export async function writeRestoredKeys(dir: string, files: Record<string, string>): Promise<void> {
  await writeAtomic(path.join(dir, RESTORED), Buffer.from(JSON.stringify(files)));
}

/**
 * Runs `fn` over `items`, at most `limit` at a time. After a failure no new item starts, and the
 * failure is thrown once those running have settled: nothing is left writing (a retry of the same
 * files would race it).
 */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (!failed && next < items.length) {
        try {
          await fn(items[next++]);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    }),
  );
  const failure = workers.find((w) => w.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Which of a published state's files a restore fetches (a lazy reader's: those of the collections it holds). */
export type FileFilter = (record: CurrentRecord) => (name: string) => boolean;
const everyFile: FileFilter = () => () => true;

/** Fetches the files of `record` that `want` names, but those the directory already has from the same object keys. */
export async function fetchFiles(objects: ObjectStore, record: CurrentRecord, dir: string, want: (name: string) => boolean, previous: Restored | null): Promise<void> {
  const had = await restoredKeys(dir, previous);
  const exists = (name: string) => fs.stat(path.join(dir, name)).then(() => true, () => false);
  const missing = await Promise.all(
    Object.entries(record.files).map(async ([name, key]) => (!want(name) || (had[name] === key && (await exists(name))) ? null : { name, key })),
  );
  await eachLimited(missing.filter((m) => m !== null), TRANSFER_CONCURRENCY, ({ name, key }) => fetchFile(objects, key, path.join(dir, name)));
}

/** Objects above this size are fetched in ranges of it, several at once (one stream is slower than the disk). */
const RANGE_BYTES = 16 << 20;

/**
 * Fetches an object into a file, whole under a temporary name first, its bytes written as they
 * arrive. The first range also tells the object's size, so a file within one range costs one
 * request; a larger one's other ranges are then fetched several at once.
 */
async function fetchFile(objects: ObjectStore, key: string, file: string): Promise<void> {
  const tmp = temporary(file);
  const handle = await fs.open(tmp, 'w');
  try {
    let size = 0;
    try {
      size = (await objects.getInto(key, { start: 0, end: RANGE_BYTES - 1 }, handle, 0)).size;
    } catch (err) {
      // No range of an empty object can be satisfied: 416 says the object is empty.
      if (!(err instanceof ObjectStoreError && err.status === 416)) throw err;
    }
    const starts = Array.from({ length: Math.max(0, Math.ceil(size / RANGE_BYTES) - 1) }, (_, i) => (i + 1) * RANGE_BYTES);
    await eachLimited(starts, TRANSFER_CONCURRENCY, async (start) => {
      await objects.getInto(key, { start, end: Math.min(size, start + RANGE_BYTES) - 1 }, handle, start);
    });
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
}

/**
 * The chunks of one log part from `from` on, in order, and the sequence number after the last.
 * Chunks known to exist (a closed part's count; an open part's listed run, when read from its
 * start) are fetched several at once; an open part is then read on until the first one missing.
 */
async function readChunks(objects: ObjectStore, part: LogPart, from: number): Promise<{ bodies: Buffer[]; next: number }> {
  const known = part.chunks ?? (from === 0 ? await listedRun(objects, part.prefix) : from);
  const bodies: Buffer[] = new Array(known - from);
  const seqs = Array.from(bodies, (_, i) => from + i);
  await eachLimited(seqs, TRANSFER_CONCURRENCY, async (seq) => {
    bodies[seq - from] = (await objects.get(chunkKey(part.prefix, seq))).body;
  });
  let next = known;
  while (part.chunks === undefined) {
    try {
      bodies.push((await objects.get(chunkKey(part.prefix, next))).body);
      next++;
    } catch (err) {
      if (err instanceof NotFound) break;
      throw err;
    }
  }
  return { bodies, next };
}

/** How many chunks 0, 1, 2, ... of a log are listed under its prefix without a gap. */
async function listedRun(objects: ObjectStore, prefix: string): Promise<number> {
  let run = 0;
  for await (const object of objects.listAll(prefix)) {
    if (object.key !== chunkKey(prefix, run)) break;
    run++;
  }
  return run;
}

/**
 * Brings `dir` to the newest published state: the files CURRENT names (but those already there
 * from the same object keys), MANIFEST, and the log chunks published so far. With `previous` of
 * the same CURRENT, only the new chunks are appended to the log. Null when nothing was published.
 */
export async function restore(objects: ObjectStore, prefix: string, dir: string, previous: Restored | null = null, wanted: FileFilter = everyFile): Promise<Restored | null> {
  for (;;) {
    const current = await readCurrent(objects, prefix);
    if (current === null) return null;
    try {
      return await restoreFrom(objects, current, dir, previous, wanted);
    } catch (err) {
      // The writer published anew and collected what this restore was reading: start over from there.
      if (!(err instanceof NotFound) || (await readCurrent(objects, prefix))?.etag === current.etag) throw err;
    }
  }
}

async function restoreFrom(objects: ObjectStore, current: Published, dir: string, previous: Restored | null, wanted: FileFilter): Promise<Restored> {
  const { record } = current;
  await fs.mkdir(dir, { recursive: true });
  const same = previous !== null && previous.etag === current.etag;
  if (!same) {
    const want = wanted(record);
    await fetchFiles(objects, record, dir, want, previous);
    await writeRestoredKeys(dir, Object.fromEntries(Object.entries(record.files).filter(([name]) => want(name))));
  }
  // Every part but the last is whole; the last is read on from where the previous restore stopped.
  const parts = same ? [{ ...record.logs[record.logs.length - 1], from: previous.chunks }] : record.logs.map((part) => ({ ...part, from: 0 }));
  const read: Buffer[] = [];
  let chunks = 0;
  for (const part of parts) {
    const got = await readChunks(objects, part, part.from);
    read.push(...got.bodies);
    chunks = got.next;
  }
  const appended = Buffer.concat(read);
  if (same) {
    if (appended.length > 0) await fs.appendFile(path.join(dir, LOG), appended);
  } else {
    await writeAtomic(path.join(dir, LOG), appended);
    await writeAtomic(path.join(dir, 'MANIFEST'), Buffer.from(record.manifest));
  }
  return { ...current, chunks, logBytes: (same ? previous.logBytes : 0) + appended.length };
}
