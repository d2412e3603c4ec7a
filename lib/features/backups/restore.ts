// `tessera restore`: a backup back into a new store directory. Every file is fetched into a
// directory beside the new one, checked against the catalog's size and checksum and synced before
// the store is assembled; only a backup that checks out whole becomes the new directory, in one
// rename. A damaged or incomplete backup is refused naming the file, and leaves nothing behind.
import { promises as fs } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as path from 'node:path';
import { StoreError } from '../../store/errors';
import { syncFile } from '../../store/file_checksum';
import { eachLimited } from '../cluster/transfers';
import { checkName, readCatalog } from './backups';
import { type BackupTarget, NotFoundError, openTarget, syncDirectory } from './target';

/** What `tessera restore` printed: the backup restored and what it cost. */
export interface BackupRestored {
  restored: string;
  commit_version: number;
  files: number;
  bytes: number;
  seconds: number;
}

/** Files a restore fetches at once. */
const FETCH_CONCURRENCY = 4;

/** `DIR/NAME` or `s3://BUCKET/PREFIX/NAME` -> the target's location and the backup's name. */
export function backupAt(from: string): { location: string; name: string } {
  const trimmed = from.replace(/\/+$/, '');
  const cut = trimmed.lastIndexOf('/');
  if (cut <= 0 || (trimmed.startsWith('s3://') && cut < 's3://'.length + 1))
    throw new StoreError(400, `--from must be DIR/NAME or s3://BUCKET/PREFIX/NAME (a backup target, then the backup's name), got "${from}"`);
  return { location: trimmed.slice(0, cut), name: checkName(trimmed.slice(cut + 1)) };
}

/** Refuses a destination that holds anything: a restore makes a new store, never mixes into one. */
async function checkEmpty(data: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(data);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new StoreError(400, `--data ${data} cannot be read: ${(err as Error).message}`);
  }
  if (entries.length > 0) throw new StoreError(400, `--data ${data} is not empty: restore into a new (or empty) directory`);
}

/** Restores backup `from` (DIR/NAME, s3://BUCKET/PREFIX/NAME) into the new directory `data`. */
export async function restoreBackup(from: string, data: string, endpoint?: string): Promise<BackupRestored> {
  const { location, name } = backupAt(from);
  const target = openTarget(location, endpoint);
  try {
    return await restoreFrom(target, name, path.resolve(data));
  } finally {
    target.close();
  }
}

async function restoreFrom(target: BackupTarget, name: string, data: string): Promise<BackupRestored> {
  const started = performance.now();
  await checkEmpty(data);
  const catalog = await readCatalog(target, name);
  if (catalog === null)
    throw new StoreError(
      404,
      `no complete backup named ${name} at ${target.location} (its catalog backups/${name}.json is missing: never finished, or deleted)`,
    );
  const staging = `${data}.restoring-${process.pid}`;
  await fs.rm(staging, { recursive: true, force: true });
  await fs.mkdir(staging, { recursive: true });
  try {
    await eachLimited(catalog.files, FETCH_CONCURRENCY, async (file) => {
      let landed: { crc32c: number; bytes: number };
      try {
        landed = await target.getFile(file.key, path.join(staging, file.name));
      } catch (err) {
        if (err instanceof NotFoundError) throw new StoreError(400, `the backup ${name} is incomplete: ${file.key} (the store's ${file.name}) is missing`);
        throw err;
      }
      if (landed.bytes !== file.bytes || landed.crc32c !== file.crc32c)
        throw new StoreError(
          400,
          `the backup ${name} is damaged: ${file.key} (the store's ${file.name}) holds ${landed.bytes} bytes of checksum ${landed.crc32c}, the catalog says ${file.bytes} bytes of checksum ${file.crc32c}`,
        );
    });
    await eachLimited(catalog.files, FETCH_CONCURRENCY, (file) => syncFile(path.join(staging, file.name)));
    if (catalog.manifest !== '') {
      const handle = await fs.open(path.join(staging, 'MANIFEST'), 'w');
      try {
        await handle.writeFile(catalog.manifest);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    }
    await syncDirectory(staging);
    // Still empty (checked again: the fetch took a while), so rename may replace it.
    await checkEmpty(data);
    await fs.rm(data, { recursive: true, force: true });
    await fs.rename(staging, data);
    await syncDirectory(path.dirname(data));
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    throw err;
  }
  return {
    restored: name,
    commit_version: catalog.commit_version,
    files: catalog.files.length,
    bytes: catalog.files.reduce((sum, f) => sum + f.bytes, 0),
    seconds: (performance.now() - started) / 1000,
  };
}
