// Backups on the library: Store.createBackup, listBackups and deleteBackup, over the target the
// store was opened with (`backupTo`, and `backupEndpoint` for an object store). Part of every
// build. One backup or delete of a store runs at a time, whichever thread serving it asks.
import { StoreError } from '../../store/errors';
import type { CallOptions } from '../../store/cancellation';
import { ExtensionState, type StoreInternals } from '../../store/extension';
import { installExtension, Store } from '../../store/store';
import type { OpenOptions } from '../../types';
import type { BackupCreated, BackupDeleted, BackupEntry } from '../../types';
import { checkName, createBackup, deleteBackup, type KnownChecksums, listBackups } from './backups';
import { type BackupTarget, bucketOf, openTarget } from './target';

declare module '../../store/store' {
  interface Store {
    /**
     * POST /backups: backs up the state at the current commit version to the store's target while
     * reads and writes go on (every write acknowledged before the call is in it), copying only
     * the files the target lacks. 400 without a target; 409 while another backup of the store
     * runs, or when `name` is taken; 502 (507 out of space) when the target fails.
     */
    createBackup(body?: { name?: string }, o?: CallOptions): Promise<BackupCreated>;
    /** GET /backups: the complete backups in the target, oldest first. */
    listBackups(o?: CallOptions): Promise<BackupEntry[]>;
    /** DELETE /backups/{name}: removes the backup, then every file no other backup names; 404 when there is none. */
    deleteBackup(name: string, o?: CallOptions): Promise<BackupDeleted>;
  }
}

interface Backups {
  location: string;
  endpoint: string | undefined;
  dir: string;
  internals: StoreInternals;
  known: KnownChecksums;
}

const backups = new ExtensionState<Backups>('backups');

/** The store's backup state, or a 400 naming how to configure a target. */
function backupsOf(store: Store, method: string): Backups {
  const state = backups.find(store);
  if (!state)
    throw new StoreError(400, `${method}: no backup target is configured: start the server with --backup-to DIR or s3://BUCKET/PREFIX (the option backupTo)`);
  return state;
}

/** Runs `work` over a target opened for it (an object store's connections closed after). */
async function withTarget<T>(state: Backups, work: (target: BackupTarget) => Promise<T>): Promise<T> {
  const target = openTarget(state.location, state.endpoint);
  try {
    return await work(target);
  } finally {
    target.close();
  }
}

function checkOptions(options: OpenOptions): void {
  const { backupTo, backupEndpoint } = options;
  if (backupTo === undefined) {
    if (backupEndpoint !== undefined) throw new StoreError(400, 'backupEndpoint needs backupTo s3://BUCKET/PREFIX');
    return;
  }
  if (typeof backupTo !== 'string' || backupTo === '') throw new StoreError(400, 'backupTo must be a directory or s3://BUCKET/PREFIX');
  if (bucketOf(backupTo) !== null && backupEndpoint === undefined)
    throw new StoreError(400, `backupTo ${backupTo} needs backupEndpoint, the object store's URL (--backup-endpoint)`);
  openTarget(backupTo, backupEndpoint).close();
}

installExtension({
  name: 'backups',
  feature: null,
  enabled: true,
  options: ['backupTo', 'backupEndpoint'],
  check: checkOptions,
  open(store, internals, options) {
    if (options.backupTo === undefined) return;
    if (options.inMemory || options.path === undefined) throw new StoreError(400, 'backupTo needs a store on disk; an in-memory store has no files to back up');
    backups.set(store, { location: options.backupTo, endpoint: options.backupEndpoint, dir: options.path, internals, known: new Map() });
  },
});

Store.prototype.createBackup = async function (this: Store, body = {}, o) {
  const state = backupsOf(this, 'createBackup');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new StoreError(400, 'the body must be an object {name?}');
  const name = body.name === undefined ? undefined : checkName(body.name);
  const source = {
    dir: state.dir,
    known: state.known,
    settle: async () => {
      if (this.role === 'Writer') await state.internals.indexesBuilt(o);
      else await this.refresh(o);
    },
    point: () => state.internals.backupPoint(o),
    refresh: async () => {
      await this.refresh(o);
    },
  };
  return state.internals.inBackupTurn(() => withTarget(state, (target) => createBackup(source, target, name, o)));
};
Store.prototype.listBackups = async function (this: Store) {
  return withTarget(backupsOf(this, 'listBackups'), listBackups);
};
Store.prototype.deleteBackup = async function (this: Store, name) {
  const state = backupsOf(this, 'deleteBackup');
  checkName(name);
  return state.internals.inBackupTurn(() => withTarget(state, (target) => deleteBackup(target, name)));
};
