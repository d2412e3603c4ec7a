// A cluster member's local copy of the published state (current.ts): a reader's at start and on
// refresh, a standby's as it follows the writer, a writer's before it opens. Each restore fetches
// only what the directory lacks, and can be abandoned between requests (AbortSignal) without
// leaving the directory half way between two states: the files it names are written whole under
// temporary names (and recorded once all landed, so the next restore does not fetch them again),
// and the log and MANIFEST only once everything was fetched.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { chunkKey, type CurrentRecord, type LogPart, type Published, readCurrent, type Restored } from './current';
import { NotFound, ObjectStoreError } from './errors';
import type { ObjectStore } from './object_store';
import { CHUNK_CONCURRENCY, eachLimited, RANGE_BYTES, TRANSFER_CONCURRENCY } from './transfers';

/** The store's log file (native/src/storage/file_names.cc). */
export const LOG = 'wal.log';

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

/** Object keys of the files a restore left in the directory, so a restart fetches only what changed. */
const RESTORED = 'RESTORED.json';

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

/** Which of a published state's files a restore fetches (a lazy reader's: those of the collections it holds). */
export type FileFilter = (record: CurrentRecord) => (name: string) => boolean;
const everyFile: FileFilter = () => () => true;

/**
 * Fetches the files of `record` that `want` names, but those the directory already has from the
 * same object keys: by the previous restore, or by RESTORED.json (a restart's, or what a restore
 * abandoned after its files landed recorded).
 */
export async function fetchFiles(
  objects: ObjectStore,
  record: CurrentRecord,
  dir: string,
  want: (name: string) => boolean,
  previous: Restored | null,
  signal?: AbortSignal,
): Promise<void> {
  const had = { ...previous?.record.files, ...(await readRestoredKeys(dir)) };
  const exists = (name: string) =>
    fs.stat(path.join(dir, name)).then(
      () => true,
      () => false,
    );
  const missing = await Promise.all(
    Object.entries(record.files).map(async ([name, key]) => (!want(name) || (had[name] === key && (await exists(name))) ? null : { name, key })),
  );
  await eachLimited(
    missing.filter((m) => m !== null),
    TRANSFER_CONCURRENCY,
    ({ name, key }) => fetchFile(objects, key, path.join(dir, name), signal),
  );
}

/**
 * Fetches an object into a file, whole under a temporary name first, its bytes written as they
 * arrive. The first range also tells the object's size, so a file within one range costs one
 * request; a larger one's other ranges are then fetched several at once.
 */
export async function fetchFile(objects: ObjectStore, key: string, file: string, signal?: AbortSignal): Promise<void> {
  const tmp = temporary(file);
  const handle = await fs.open(tmp, 'w');
  try {
    let size = 0;
    try {
      size = (await objects.getInto(key, { start: 0, end: RANGE_BYTES - 1 }, handle, 0, { signal })).size;
    } catch (err) {
      // No range of an empty object can be satisfied: 416 says the object is empty.
      if (!(err instanceof ObjectStoreError && err.status === 416)) throw err;
    }
    const starts = Array.from({ length: Math.max(0, Math.ceil(size / RANGE_BYTES) - 1) }, (_, i) => (i + 1) * RANGE_BYTES);
    await eachLimited(starts, TRANSFER_CONCURRENCY, async (start) => {
      await objects.getInto(key, { start, end: Math.min(size, start + RANGE_BYTES) - 1 }, handle, start, { signal });
    });
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
}

/**
 * The chunks of one log part from `from` on, in order, and the sequence number after the last,
 * fetched several at once: a closed part's up to its count, an open part's as far as a listing
 * shows them. Listings are consistent, so every chunk that landed before the read began is in it
 * (a write acknowledged before a refresh is read by it); one that lands meanwhile is the next
 * read's. However far behind the reader is, and however fast the writer goes on, a read costs one
 * listing and chunks / CHUNK_CONCURRENCY round trips, never a chase one chunk at a time.
 */
async function readChunks(objects: ObjectStore, part: LogPart, from: number, signal?: AbortSignal): Promise<{ bodies: Buffer[]; next: number }> {
  const next = part.chunks ?? (await listedRun(objects, part.prefix, from, signal));
  const bodies: Buffer[] = new Array(Math.max(0, next - from));
  const seqs = Array.from(bodies, (_, i) => from + i);
  await eachLimited(seqs, CHUNK_CONCURRENCY, async (seq) => {
    bodies[seq - from] = (await objects.get(chunkKey(part.prefix, seq), undefined, { signal })).body;
  });
  return { bodies, next: Math.max(next, from) };
}

/** The chunk after the run `from`, `from` + 1, ... listed under a log's prefix without a gap. */
async function listedRun(objects: ObjectStore, prefix: string, from: number, signal?: AbortSignal): Promise<number> {
  let run = from;
  const startAfter = from > 0 ? chunkKey(prefix, from - 1) : undefined;
  for await (const object of objects.listAll(prefix, { startAfter, signal })) {
    if (object.key !== chunkKey(prefix, run)) break;
    run++;
  }
  return run;
}

/**
 * Whether `record` continues what `previous` restored: the same manifest, and log parts that
 * extend those restored (the last one past the chunks read). Then only the new chunks are read
 * and appended: a writer's republish (an index saved) and a successor's claim of CURRENT cost a
 * follower nothing but their new files.
 */
function continues(previous: Restored, record: CurrentRecord): boolean {
  const before = previous.record;
  if (record.manifest !== before.manifest || before.logs.length === 0 || record.logs.length < before.logs.length) return false;
  const last = before.logs.length - 1;
  return before.logs.every((part, i) => {
    const now = record.logs[i];
    if (now.prefix !== part.prefix) return false;
    return i < last ? now.chunks === part.chunks : now.chunks === undefined || now.chunks >= previous.chunks;
  });
}

export interface RestoreOptions {
  /** What the last restore into the directory left (absent: none in this process). */
  previous?: Restored | null;
  /** Which files to fetch (default: every one). */
  wanted?: FileFilter;
  /** Abandons the restore between requests, the directory as it was. */
  signal?: AbortSignal;
  /** Told the ETag of the CURRENT the restore brings the directory to (again if it starts over). */
  reading?(etag: string): void;
}

/**
 * Brings `dir` to the newest published state: the files CURRENT names (but those already there
 * from the same object keys), MANIFEST, and the log chunks published so far. With `previous` of a
 * state this one continues, only the new chunks are appended to the log. Null when nothing was
 * published. A writer that published anew and collected what the restore was reading makes it
 * start over from there.
 */
export async function restore(
  objects: ObjectStore,
  prefix: string,
  dir: string,
  { previous = null, wanted = everyFile, signal, reading }: RestoreOptions = {},
): Promise<Restored | null> {
  for (;;) {
    const current = await readCurrent(objects, prefix, signal);
    if (current === null) return null;
    reading?.(current.etag);
    try {
      return await restoreFrom(objects, current, dir, previous, wanted, signal);
    } catch (err) {
      if (!(err instanceof NotFound) || (await readCurrent(objects, prefix, signal))?.etag === current.etag) throw err;
    }
  }
}

async function restoreFrom(
  objects: ObjectStore,
  current: Published,
  dir: string,
  previous: Restored | null,
  wanted: FileFilter,
  signal?: AbortSignal,
): Promise<Restored> {
  const { record } = current;
  await fs.mkdir(dir, { recursive: true });
  // The state restored before, when this one continues it.
  const base = previous !== null && continues(previous, record) ? previous : null;
  const want = wanted(record);
  if (previous?.etag !== current.etag) {
    await fetchFiles(objects, record, dir, want, previous, signal);
    await writeRestoredKeys(dir, Object.fromEntries(Object.entries(record.files).filter(([name]) => want(name))));
  }
  // A continued state reads its last restored part on from where the previous restore stopped,
  // then any parts after it; any other reads every part from the start.
  const parts = base
    ? record.logs.slice(base.record.logs.length - 1).map((part, i) => ({ ...part, from: i === 0 ? base.chunks : 0 }))
    : record.logs.map((part) => ({ ...part, from: 0 }));
  const read: Buffer[] = [];
  let chunks = 0;
  for (const part of parts) {
    const got = await readChunks(objects, part, part.from, signal);
    read.push(...got.bodies);
    chunks = got.next;
  }
  // Everything is here: from now on the directory changes whole or not at all.
  signal?.throwIfAborted();
  const appended = Buffer.concat(read);
  if (base) {
    // From where the previous restore left it: an append that failed half way is not repeated after its half.
    if (appended.length > 0) {
      await fs.truncate(path.join(dir, LOG), base.logBytes);
      await fs.appendFile(path.join(dir, LOG), appended);
    }
  } else {
    await writeAtomic(path.join(dir, LOG), appended);
    await writeAtomic(path.join(dir, 'MANIFEST'), Buffer.from(record.manifest));
  }
  return { ...current, chunks, logBytes: (base?.logBytes ?? 0) + appended.length };
}
