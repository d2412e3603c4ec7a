// A store's backups in a target (target.ts): create one of the state served now while reads and
// writes go on, list the complete ones, delete one with the files no other names.
//
// A backup is the store's state at one commit version: HEADER, the files its manifest names
// (indexes included, so a restored store serves at index speed at once), the log's bytes that
// state read, and the manifest's text. The log only grows until a checkpoint writes a new
// manifest, so the log is copied first, and is that state's if the manifest is still the point's
// after the copy. Segment files never change once written, and a writer keeps the point's files
// until the backup ends; a reader cannot, so a file the writer removed under its copy makes it
// start over from a new point (what it copied already is kept: content-named, it is not copied
// again).
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as path from 'node:path';
import { isCancelled } from '../../store/call';
import type { CallOptions } from '../../store/cancellation';
import type { BackupPoint } from '../../store/extension';
import { cancelledError, StoreError } from '../../store/errors';
import { checksumFile } from '../../store/file_checksum';
import type { BackupCreated, BackupDeleted, BackupEntry } from '../../types';
import { eachLimited } from '../cluster/transfers';
import { type BackupTarget, CATALOGS, FILES, targetFailure } from './target';

/** The store's log file, copied up to the point's log_bytes (native/src/storage/file_names.cc). */
export const LOG = 'wal.log';

/** One file of a backup: its name in the store directory, its key in the target, and its content's size and CRC32C. */
export interface BackupFile {
  name: string;
  key: string;
  bytes: number;
  crc32c: number;
}

/** A complete backup, as its catalog (backups/<name>.json) holds it. */
export interface Catalog {
  format: 1;
  name: string;
  commit_version: number;
  /** ISO 8601, when the backup completed. */
  created_at: string;
  /** The store's MANIFEST ('' when the state had none yet). */
  manifest: string;
  files: BackupFile[];
}

/** What a backup needs of its store: the point, a reader's refresh, the directory. */
export interface BackupSource {
  dir: string;
  /**
   * Brings the store to the state a backup copies: a writer's index builds and saves in flight
   * finished (so the backup holds every index), a reader refreshed (so it holds every write the
   * writer acknowledged).
   */
  settle(): Promise<void>;
  point(): Promise<BackupPoint>;
  /** The checksums of the store's files read by earlier backups. */
  known: KnownChecksums;
  /** A reader catching up with the newest state on disk (the point's state was removed under it). */
  refresh(): Promise<void>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Points taken before a backup gives up on a store that compacts under every copy. */
const ATTEMPTS = 8;
/** Files a directory copies at once, several disks' worth of queue. */
const COPY_CONCURRENCY = 4;

/** Refuses a backup name that is not one path segment of safe characters. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new StoreError(400, `name must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit, got ${JSON.stringify(name)}`);
  return name;
}

const catalogKey = (name: string) => `${CATALOGS}${name}.json`;
/** `files/NAME.BYTES`: the keys a file of that name and size may have. */
const sizedKey = (name: string, bytes: number) => `${FILES}${name}.${bytes}`;
const fileKey = (name: string, sum: { bytes: number; crc32c: number }) => `${sizedKey(name, sum.bytes)}.${sum.crc32c.toString(16).padStart(8, '0')}`;
const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** A catalog as the target holds it: the text and its SHA-256, so a damaged one is told apart from a valid one. */
function catalogText(catalog: Catalog): string {
  const text = JSON.stringify(catalog);
  return JSON.stringify({ sha256: digest(text), catalog: text });
}

/** The backup `name` of the target; null when there is none. A catalog that fails its checksum is a 400 naming it. */
export async function readCatalog(target: BackupTarget, name: string): Promise<Catalog | null> {
  const text = await target.getText(catalogKey(name));
  if (text === null) return null;
  let sealed: { sha256?: unknown; catalog?: unknown };
  try {
    sealed = JSON.parse(text);
  } catch {
    sealed = {};
  }
  if (typeof sealed.catalog !== 'string' || sealed.sha256 !== digest(sealed.catalog))
    throw new StoreError(400, `the backup ${name} is damaged: its catalog ${catalogKey(name)} does not match its checksum`);
  return JSON.parse(sealed.catalog) as Catalog;
}

/**
 * Every backup's catalog but `except`'s, oldest first. A catalog the target fails to read fails
 * the call; one that fails its checksum is left out (a list), or with `strict` refuses the call
 * with 409 naming it: a delete must know every file the other backups name.
 */
async function catalogs(target: BackupTarget, { strict = false, except }: { strict?: boolean; except?: string } = {}): Promise<Catalog[]> {
  const out: Catalog[] = [];
  for (const entry of await target.listCatalogs()) {
    if (!entry.endsWith('.json')) continue;
    const name = entry.slice(0, -'.json'.length);
    if (name === except) continue;
    try {
      const catalog = await readCatalog(target, name);
      if (catalog) out.push(catalog);
    } catch (err) {
      if (!(err instanceof StoreError && err.status === 400)) throw err;
      if (strict)
        throw new StoreError(
          409,
          `${err.message}: no file can be deleted while a backup's files are unknown; delete that backup first (DELETE /backups/${name})`,
        );
    }
  }
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.name.localeCompare(b.name));
}

/** The state changed under a copy: a compaction removed a file, a checkpoint a manifest. */
class Moved extends Error {}

/**
 * Creates backup `name` (default: the time and commit version) of the state `source` serves when
 * it is called: every write acknowledged before is in it. Call it in the store's backup turn.
 */
export async function createBackup(source: BackupSource, target: BackupTarget, name?: string, o?: CallOptions): Promise<BackupCreated> {
  const started = performance.now();
  const fail = (err: unknown): never => {
    throw targetFailure(target.location, err);
  };
  if (name !== undefined && (await target.getText(catalogKey(name)).catch(fail)) !== null)
    throw new StoreError(409, `a backup named ${name} exists; pick another name or delete it first`);
  await target.sweepPartial().catch(fail);
  await source.settle();
  const held = await target.listFiles().catch(fail);
  // Keys this backup copied (an abandoned attempt's included): its new bytes are those it names.
  const copied = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    try {
      const point = await source.point();
      if (!point.current) {
        await source.refresh();
        throw new Moved();
      }
      const copy = (wanted: Wanted[]) => copyFiles(source.dir, wanted, target, held, source.known, o, copied);
      const log = point.log_bytes > 0 ? await copy([{ name: LOG, length: point.log_bytes }]) : [];
      // A checkpoint empties the log only after it wrote a new manifest.
      const after = await source.point();
      if (!after.current || after.manifest !== point.manifest) throw new Moved();
      const files = [...(await copy(point.files.map((name) => ({ name })))), ...log];
      const named = new Set(files.map((f) => path.join(source.dir, f.name)));
      for (const file of source.known.keys()) if (!named.has(file)) source.known.delete(file);
      const created = name ?? defaultName(point.commit_version);
      const catalog: Catalog = {
        format: 1,
        name: created,
        commit_version: point.commit_version,
        created_at: new Date().toISOString(),
        manifest: point.manifest,
        files,
      };
      await target.settle().catch(fail);
      await target.putText(catalogKey(created), catalogText(catalog)).catch(fail);
      return {
        name: created,
        commit_version: point.commit_version,
        files: files.length,
        bytes: files.reduce((sum, f) => sum + f.bytes, 0),
        new_bytes: files.reduce((sum, f) => sum + (copied.has(f.key) ? f.bytes : 0), 0),
        seconds: (performance.now() - started) / 1000,
      };
    } catch (err) {
      if (!(err instanceof Moved)) throw err;
      if (attempt === ATTEMPTS)
        throw new StoreError(503, `the store's files changed under ${ATTEMPTS} copies in a row (compactions, checkpoints); retry the backup`);
    }
  }
}

/** `2026-12-07T08-57-43-123Z-v42`: sorts by time, names the version. */
function defaultName(version: number): string {
  return `${new Date().toISOString().replaceAll(':', '-').replace('.', '-')}-v${version}`;
}

/** A store file to copy: its first `length` bytes (all of it when absent). */
interface Wanted {
  name: string;
  length?: number;
}

/** A file's checksum as of its identity (inode, size, change time): sealed files never change in place, so one read names them for every later backup. */
export type KnownChecksums = Map<string, { ino: number; size: number; mtimeMs: number; crc32c: number }>;

/**
 * Copies the files the target lacks (a key of the same name, size and checksum is there already);
 * answers their backup entries. A file the target has no key of its name and size for is copied
 * in one pass that names it; one it may have is checksummed first (once per file identity, kept in
 * `known`). A file gone, cut short, or changed between its checksum and its copy is a Moved.
 */
async function copyFiles(
  dir: string,
  wanted: Wanted[],
  target: BackupTarget,
  held: Map<string, number>,
  known: KnownChecksums,
  o: CallOptions | undefined,
  copied: Set<string>,
): Promise<BackupFile[]> {
  const files: BackupFile[] = new Array(wanted.length);
  const heldSizes = new Set([...held.keys()].map((key) => key.slice(0, key.lastIndexOf('.'))));
  const stall = process.env.TESSERA_TEST_FAULTS === '1' && process.env.TESSERA_TEST_BACKUP_STALL === '1';
  await eachLimited(
    wanted.map((w, i) => ({ ...w, i })),
    COPY_CONCURRENCY,
    async ({ name, length, i }) => {
      if (isCancelled(o)) throw cancelledError();
      const file = path.join(dir, name);
      const stat = await fs.stat(file).catch(movedWhenGone);
      const bytes = length ?? stat.size;
      if (stat.size < bytes) throw new Moved();
      const identity = { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
      const cached = known.get(file);
      // The log grows in place: only a sealed file's identity names its bytes.
      let crc32c =
        length === undefined && cached?.ino === identity.ino && cached.size === identity.size && cached.mtimeMs === identity.mtimeMs
          ? cached.crc32c
          : undefined;
      if (crc32c === undefined && heldSizes.has(sizedKey(name, bytes))) crc32c = (await checksumFile(file, bytes).catch(movedWhenGone)).crc32c;
      if (crc32c !== undefined) {
        const key = fileKey(name, { bytes, crc32c });
        if (held.get(key) === bytes) {
          files[i] = { name, key, bytes, crc32c };
          if (length === undefined) known.set(file, { ...identity, crc32c });
          return;
        }
      }
      const landed = await target
        .putFile(file, length, (sum) => fileKey(name, sum))
        .catch(async (err) => {
          throw shortRead(err) || (await gone(file)) ? new Moved() : targetFailure(target.location, err);
        });
      // What landed is named by its own content, so it stays (a later delete sweeps it when unnamed).
      if (landed.bytes !== bytes || (crc32c !== undefined && landed.crc32c !== crc32c)) throw new Moved();
      files[i] = { name, key: landed.key, bytes, crc32c: landed.crc32c };
      if (length === undefined) known.set(file, { ...identity, crc32c: landed.crc32c });
      held.set(landed.key, bytes);
      copied.add(landed.key);
      // A test's way to kill a server mid-backup (TESSERA_TEST_FAULTS=1): the file lands, then the backup never ends.
      if (stall) {
        await target.settle();
        await new Promise(() => undefined);
      }
    },
  );
  return files;
}

/** A file gone (404) or shorter than the point says (400: a log emptied) moved under the copy. */
const movedWhenGone = (err: unknown): never => {
  const { status, code } = err as { status?: number; code?: string };
  if (status === 404 || status === 400 || code === 'ENOENT') throw new Moved();
  throw err;
};

/** A store file read shorter than the point says (400): a checkpoint emptied the log under the copy. */
const shortRead = (err: unknown) => err instanceof StoreError && err.status === 400;

/** Whether a store file is gone (a compaction removed it under the copy). */
const gone = (file: string): Promise<boolean> =>
  fs.stat(file).then(
    () => false,
    () => true,
  );

/** The complete backups, oldest first. */
export async function listBackups(target: BackupTarget): Promise<BackupEntry[]> {
  try {
    return (await catalogs(target)).map((c) => ({
      name: c.name,
      commit_version: c.commit_version,
      created_at: c.created_at,
      files: c.files.length,
      bytes: c.files.reduce((sum, f) => sum + f.bytes, 0),
    }));
  } catch (err) {
    throw targetFailure(target.location, err);
  }
}

/**
 * Deletes backup `name`: its catalog first (it is no longer listed, nor restorable), then every
 * file no other backup names (those a killed backup left too). Call it in the store's backup turn.
 */
export async function deleteBackup(target: BackupTarget, name: string): Promise<BackupDeleted> {
  checkName(name);
  const fail = (err: unknown): never => {
    throw targetFailure(target.location, err);
  };
  if ((await target.getText(catalogKey(name)).catch(fail)) === null) throw new StoreError(404, `no backup named ${name} at ${target.location}`);
  // Every other catalog read before anything goes: one unread would have its files deleted.
  const others = await catalogs(target, { strict: true, except: name }).catch(fail);
  try {
    await target.delete(catalogKey(name));
    const kept = new Set(others.flatMap((c) => c.files.map((f) => f.key)));
    let files = 0;
    let bytes = 0;
    for (const [key, size] of await target.listFiles()) {
      if (kept.has(key)) continue;
      await target.delete(key);
      files++;
      bytes += size;
    }
    await target.sweepPartial();
    return { deleted: name, files, bytes };
  } catch (err) {
    throw targetFailure(target.location, err);
  }
}
