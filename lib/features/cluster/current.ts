// CURRENT: the one object of a cluster store that says which state is published. Layout under the
// store's prefix:
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
import { NotFound, OutcomeUnknown, PreconditionFailed } from './errors';
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
   * has its chunk count; the last grows, and is read as far as a listing shows its chunks.
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

/** What a restore left in a directory, so that the next one fetches only what changed. */
export interface Restored extends Published {
  /** Chunks of the last log part already in wal.log. */
  chunks: number;
  /** wal.log's length after the restore. */
  logBytes: number;
}

export const currentKey = (prefix: string) => `${prefix}/CURRENT`;

export const chunkKey = (log: string, seq: number) => `${log}${String(seq).padStart(12, '0')}`;

/** CURRENT as published, or null when nothing was published yet. */
export async function readCurrent(objects: ObjectStore, prefix: string, signal?: AbortSignal): Promise<Published | null> {
  try {
    const { body, etag } = await objects.get(currentKey(prefix), undefined, { signal });
    const record = JSON.parse(body.toString('utf8')) as CurrentRecord;
    if (record.format !== 1) throw new Error(`${prefix}/CURRENT has format ${record.format}; this version reads format 1`);
    return { record, etag };
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

/** Whether an object key belongs to `record`: one of its files, or a chunk of one of its log parts. */
export function namedBy(record: CurrentRecord): (key: string) => boolean {
  const files = new Set(Object.values(record.files));
  const parts = record.logs.map((part) => part.prefix);
  return (key) => files.has(key) || parts.some((part) => key.startsWith(part));
}

/**
 * Replaces CURRENT with `record` under If-Match on `etag` (null: create it); resolves the new ETag,
 * or null when CURRENT is no longer `etag` (another writer published). A put whose answer was lost
 * is read back: CURRENT holding exactly these bytes means it landed.
 */
export async function replaceCurrent(objects: ObjectStore, prefix: string, record: CurrentRecord, etag: string | null): Promise<string | null> {
  const body = JSON.stringify(record);
  try {
    return (await objects.put(currentKey(prefix), body, etag === null ? { ifNoneMatch: '*' } : { ifMatch: etag })).etag;
  } catch (err) {
    if (err instanceof PreconditionFailed) return null;
    if (!(err instanceof OutcomeUnknown)) throw err;
    const now = await objects.get(currentKey(prefix)).catch((e) => (e instanceof NotFound ? null : Promise.reject(e)));
    if (now?.body.toString('utf8') === body) return now.etag;
    // Still what it was: the put did not land, and may be tried again. Anything else: superseded.
    if (now?.etag === (etag ?? undefined)) throw err;
    return null;
  }
}

/**
 * A writer that took the lease claims CURRENT before it opens: the state it restored, under its
 * own epoch, with the last log part closed at the chunks it restored, If-Match on the ETag it
 * restored. From then on a predecessor that lost the lease unseen can publish nothing (its If-Match
 * fails), its cleanup stops (CURRENT is not its own), and a chunk it still puts past the count is
 * never read. Null when CURRENT changed since the restore: restore again.
 */
export async function claimCurrent(objects: ObjectStore, prefix: string, restored: Restored, epoch: number): Promise<Restored | null> {
  const logs = restored.record.logs.map((part, i, all) => (i === all.length - 1 ? { ...part, chunks: restored.chunks } : part));
  const record: CurrentRecord = { ...restored.record, epoch, logs };
  const etag = await replaceCurrent(objects, prefix, record, restored.etag);
  return etag === null ? null : { ...restored, record, etag };
}
