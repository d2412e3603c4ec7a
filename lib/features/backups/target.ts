// Where backups live: a directory, or a bucket and prefix of an S3-compatible object store (the
// client and credentials of cluster mode). Both hold the same layout under their root:
//
//   files/<name>.<bytes>.<crc32c>   a store file's content, named by it: a backup that finds the
//                                   key already there copies nothing (incremental by construction)
//   backups/<backup>.json           a backup's catalog, written last: a backup exists once it does
//
// A target copies and fetches whole or not at all: a directory writes under a temporary name,
// syncs (a few files later, so the disk writes while the next are copied), then renames; an
// object store's put is atomic.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StoreError } from '../../store/errors';
import { type Checksummed, checksumFile, copyFileChecksummed, syncFile } from '../../store/file_checksum';
import { NotFound } from '../cluster/errors';
import { awsEnvironment, ObjectStore } from '../cluster/object_store';
import { fetchFile } from '../cluster/restore';

export interface BackupTarget {
  /** As the user named it: a directory path, or s3://BUCKET/PREFIX. */
  readonly location: string;
  /** Every complete object under files/, key -> bytes. */
  listFiles(): Promise<Map<string, number>>;
  /**
   * Copies a local file's first `length` bytes (all of it when absent: a sealed file, which never
   * changes) to the key `keyOf` names by their checksum: whole,
   * or (after a failure) not at all. Answers the key and what landed.
   */
  putFile(file: string, length: number | undefined, keyOf: (sum: Checksummed) => string): Promise<Checksummed & { key: string }>;
  /** Fetches `key` into a local file (replaced whole): what landed, checksummed. NotFoundError when there is no such key. */
  getFile(key: string, file: string): Promise<Checksummed>;
  /** Makes every file put so far durable under its key (a put may land a few puts later). */
  settle(): Promise<void>;
  /** Writes a catalog, durably (settle the files it names first). */
  putText(key: string, text: string): Promise<void>;
  /** The object's text, or null when there is none. */
  getText(key: string): Promise<string | null>;
  /** The names under backups/ (without the prefix). */
  listCatalogs(): Promise<string[]>;
  delete(key: string): Promise<void>;
  /** Removes what a copy killed half way left (a directory's temporary files). */
  sweepPartial(): Promise<void>;
  close(): void;
}

/** A key the target does not hold. */
export class NotFoundError extends Error {}

export const FILES = 'files/';
export const CATALOGS = 'backups/';
const PARTIAL = '.partial';

/** A target's own failure (a full disk, an unreachable object store): 507 when out of space, else 502, naming the target and the cause. */
export function targetFailure(location: string, err: unknown): StoreError {
  if (err instanceof StoreError && err.status !== 500 && err.status !== 404) return err;
  const e = err as NodeJS.ErrnoException & { status?: number };
  const full = e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.status === 507;
  return new StoreError(full ? 507 : 502, `the backup target ${location} failed: ${e.message ?? String(err)}`);
}

/** `s3://BUCKET/PREFIX` -> its parts, or null for a directory. */
export function bucketOf(location: string): { bucket: string; prefix: string } | null {
  if (!location.startsWith('s3://')) return null;
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/([^\s]*[^\s/])$/.exec(location);
  if (!m) throw new StoreError(400, `a backup target in an object store is s3://BUCKET/PREFIX (a bucket name, then a non-empty key prefix), got "${location}"`);
  return { bucket: m[1], prefix: m[2] };
}

/** The target at `location`; `endpoint` is the object store's URL (s3:// only, which needs it). */
export function openTarget(location: string, endpoint?: string): BackupTarget {
  const bucket = bucketOf(location);
  if (bucket === null) {
    if (endpoint !== undefined) throw new StoreError(400, 'backupEndpoint is for a backup target s3://BUCKET/PREFIX; a directory needs none');
    return new DirectoryTarget(location);
  }
  if (endpoint === undefined)
    throw new StoreError(400, `the backup target ${location} needs the object store's endpoint URL (--backup-endpoint, backupEndpoint)`);
  let aws: ReturnType<typeof awsEnvironment>;
  try {
    aws = awsEnvironment();
  } catch (err) {
    throw new StoreError(400, `the backup target ${location}: ${(err as Error).message}`);
  }
  return new BucketTarget(location, new ObjectStore({ endpoint, bucket: bucket.bucket, ...aws }), bucket.prefix);
}

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as { status?: number }).status === 404;

/** Files a directory target copies ahead of the one it makes durable: the disk writes one while the next are copied. */
const LANDING_LAG = 8;

class DirectoryTarget implements BackupTarget {
  /** Copied under a temporary name, write-back started, oldest first: synced, then renamed to its key. */
  private readonly landing: { partial: string; key: string }[] = [];
  private copies = 0;

  constructor(readonly location: string) {}

  private at(key: string): string {
    return path.join(this.location, key);
  }

  async listFiles(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    let names: string[];
    try {
      names = await fs.readdir(this.at(FILES));
    } catch (err) {
      if (missing(err)) return out;
      throw err;
    }
    for (const name of names) {
      if (name.endsWith(PARTIAL)) continue;
      const stat = await fs.stat(this.at(FILES + name)).catch(() => null);
      if (stat?.isFile()) out.set(FILES + name, stat.size);
    }
    return out;
  }

  /**
   * One pass: the copy, under a temporary name, checksums what it writes; once synced (after
   * LANDING_LAG later puts, or at settle) the rename names it, so a key never holds bytes that a
   * crash could lose.
   */
  async putFile(file: string, length: number | undefined, keyOf: (sum: Checksummed) => string): Promise<Checksummed & { key: string }> {
    await this.makeDir(FILES);
    // Its own temporary name: a copy retried (a log copied again after a checkpoint) may land beside the first.
    const partial = this.at(`${FILES}${path.basename(file)}.${++this.copies}${PARTIAL}`);
    const sum = await copyFileChecksummed(file, partial, length);
    const key = keyOf(sum);
    this.landing.push({ partial, key });
    while (this.landing.length > LANDING_LAG) await this.landOldest();
    return { ...sum, key };
  }

  private async landOldest(): Promise<void> {
    const oldest = this.landing.shift();
    if (!oldest) return;
    await syncFile(oldest.partial);
    await fs.rename(oldest.partial, this.at(oldest.key));
  }

  async settle(): Promise<void> {
    while (this.landing.length > 0) await this.landOldest();
    await syncDirectory(this.at(FILES)).catch((err) => {
      if (!missing(err)) throw err;
    });
  }

  /** Creates a directory of the layout, its entry in the target synced when it is new. */
  private async makeDir(dir: string): Promise<void> {
    if ((await fs.mkdir(this.at(dir), { recursive: true })) !== undefined) await syncDirectory(this.location);
  }

  async getFile(key: string, file: string): Promise<Checksummed> {
    try {
      return await copyFileChecksummed(this.at(key), file);
    } catch (err) {
      if (missing(err)) throw new NotFoundError(`${key} is missing`);
      throw err;
    }
  }

  async putText(key: string, text: string): Promise<void> {
    const target = this.at(key);
    await this.makeDir(CATALOGS);
    const handle = await fs.open(target + PARTIAL, 'w');
    try {
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.rename(target + PARTIAL, target);
    await syncDirectory(path.dirname(target));
  }

  async getText(key: string): Promise<string | null> {
    try {
      return await fs.readFile(this.at(key), 'utf8');
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async listCatalogs(): Promise<string[]> {
    try {
      return (await fs.readdir(this.at(CATALOGS))).filter((name) => !name.endsWith(PARTIAL));
    } catch (err) {
      if (missing(err)) return [];
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const landing = this.landing.findIndex((l) => l.key === key);
    if (landing >= 0) await fs.rm(this.landing.splice(landing, 1)[0].partial, { force: true });
    await fs.rm(this.at(key), { force: true });
  }

  async sweepPartial(): Promise<void> {
    for (const dir of [FILES, CATALOGS]) {
      const names = await fs.readdir(this.at(dir)).catch(() => [] as string[]);
      for (const name of names) if (name.endsWith(PARTIAL)) await fs.rm(this.at(dir + name), { force: true });
    }
  }

  close(): void {}
}

/** The prefix's objects; a large one fetched in ranges, several at once (cluster mode's transfers). */
class BucketTarget implements BackupTarget {
  constructor(
    readonly location: string,
    private readonly objects: ObjectStore,
    private readonly prefix: string,
  ) {}

  private at(key: string): string {
    return `${this.prefix}/${key}`;
  }

  async listFiles(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for await (const object of this.objects.listAll(this.at(FILES))) out.set(object.key.slice(this.prefix.length + 1), object.size);
    return out;
  }

  /** Checksummed, then read whole for the put (the object store's put takes one body): a file's size bounds the memory it takes. */
  async putFile(file: string, length: number | undefined, keyOf: (sum: Checksummed) => string): Promise<Checksummed & { key: string }> {
    const sum = await checksumFile(file, length);
    const key = keyOf(sum);
    const handle = await fs.open(file, 'r');
    let body: Buffer;
    try {
      body = Buffer.alloc(sum.bytes);
      for (let done = 0; done < sum.bytes; ) {
        const { bytesRead } = await handle.read(body, done, sum.bytes - done, done);
        if (bytesRead === 0) throw new StoreError(400, `${file} ended at ${done}, before ${sum.bytes}`);
        done += bytesRead;
      }
    } finally {
      await handle.close();
    }
    // Checksummed again: a key must name the bytes it holds (a log emptied and refilled between
    // the two reads would not).
    const after = await checksumFile(file, sum.bytes);
    if (after.crc32c !== sum.crc32c) throw new StoreError(400, `${file} changed while it was read`);
    await this.objects.put(this.at(key), body);
    return { ...sum, key };
  }

  async getFile(key: string, file: string): Promise<Checksummed> {
    try {
      await fetchFile(this.objects, this.at(key), file);
    } catch (err) {
      if (err instanceof NotFound) throw new NotFoundError(`${key} is missing`);
      throw err;
    }
    return checksumFile(file);
  }

  async settle(): Promise<void> {}

  async putText(key: string, text: string): Promise<void> {
    await this.objects.put(this.at(key), text);
  }

  async getText(key: string): Promise<string | null> {
    try {
      return (await this.objects.get(this.at(key))).body.toString('utf8');
    } catch (err) {
      if (err instanceof NotFound) return null;
      throw err;
    }
  }

  async listCatalogs(): Promise<string[]> {
    const out: string[] = [];
    const from = this.at(CATALOGS);
    for await (const object of this.objects.listAll(from)) out.push(object.key.slice(from.length));
    return out;
  }

  async delete(key: string): Promise<void> {
    await this.objects.delete(this.at(key));
  }

  async sweepPartial(): Promise<void> {}

  close(): void {
    this.objects.close();
  }
}

/** Syncs a directory, so that a rename into it survives a power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
