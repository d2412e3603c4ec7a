// A cluster node's bounded local copy (--cache-bytes): it holds the segment files of the
// collections its calls needed, not the whole store. A call touching a collection it does not hold
// fails in the core with `notResident`; the store (Store.open's fetchCollections) then asks this
// cache to fetch that collection's files and make it resident, and runs the call again. Past the
// byte bound, the collections used longest ago (Store.collectionReads) are dropped from the store
// and their files removed (the collections a fetch is for are kept, even past the bound).
//
// A reader's copy is the published state's files. A writer's directory also holds the files it
// writes itself (checkpoints, compactions, indexes), so a writer drops a collection in three steps:
// the store lets its rows go (checkpointing them first when they changed), the writer publishes,
// and only then are its files removed, those the published state names: what is removed is in
// the object store.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StoreError } from '../../store/errors';
import type { Store } from '../../store/store';
import { NotFound } from './errors';
import type { ObjectStore } from './object_store';
import type { CurrentRecord, Restored } from './current';
import { type FileFilter, fetchFiles, isTemporary, type RestoreOptions, readRestoredKeys, restore, writeRestoredKeys } from './restore';
import { Serial } from '../../store/serial';

/** A segment file's name: seg-N.<kind> (see native/src/storage/file_names.h). */
const SEGMENT_FILE = /^seg-(\d+)\./;

const manifestOf = (source: { manifest: string }) => JSON.parse(source.manifest) as { collections: { name: string; segments: { id: number }[] }[] };

/** Segment id -> collection name, from a manifest's text (a published record's, or a replication point's). */
function segmentOwners(source: { manifest: string }): Map<string, string> {
  const owners = new Map<string, string>();
  for (const c of manifestOf(source).collections) for (const s of c.segments) owners.set(String(s.id), c.name);
  return owners;
}

/** The collection a segment file belongs to, by segmentOwners; undefined for any other file. */
const ownerOf = (owners: Map<string, string>, file: string) => owners.get(SEGMENT_FILE.exec(file)?.[1] ?? '');

/** Collection name -> its segment files in the record, as [name, object key]. */
function filesByCollection(record: CurrentRecord): Map<string, [string, string][]> {
  const owners = segmentOwners(record);
  const out = new Map<string, [string, string][]>();
  for (const [name, key] of Object.entries(record.files)) {
    const owner = ownerOf(owners, name);
    if (owner !== undefined) out.set(owner, [...(out.get(owner) ?? []), [name, key]]);
  }
  return out;
}

const sum = (sizes: Map<string, number>) => [...sizes.values()].reduce((a, b) => a + b, 0);

/** A writer's side of its cache: what it published last, and a publish of everything it committed. */
export interface Publisher {
  published(): CurrentRecord | null;
  durable(): Promise<void>;
}

export interface CollectionCacheOptions {
  objects: ObjectStore;
  prefix: string;
  dir: string;
  /** The bound on the held collections' segment files, in bytes. */
  bytes: number;
}

export class CollectionCache {
  /** Held collections, least recently read first. */
  private held = new Set<string>();
  private restored: Restored | null = null;
  private store: Store | null = null;
  /** Set on a writer's cache. */
  private publisher: Publisher | null = null;
  /** What the store was last told to hold (setResident, hold). */
  private storeHolds = new Set<string>();
  /** Every change to the directory or the held set runs after the one before. */
  private readonly serial = new Serial();
  readonly counters = { fetched: 0, evicted: 0 };
  /** Bytes of the held collections' files, as of the last change. */
  heldBytes = 0;

  constructor(private readonly options: CollectionCacheOptions) {}

  /** The files a restore fetches: every file but segment files, and those of held collections. */
  readonly wanted: FileFilter = (record) => {
    const owners = segmentOwners(record);
    return (name) => {
      const segment = SEGMENT_FILE.exec(name);
      if (!segment) return true;
      const owner = owners.get(segment[1]);
      return owner !== undefined && this.held.has(owner);
    };
  };

  /** The collections the store holds (Store.open's `resident`). */
  resident(): string[] {
    return [...this.held];
  }

  /** Restores the newest published state (held collections' files only); null when nothing was published. */
  pull(options: Pick<RestoreOptions, 'signal' | 'reading'> = {}): Promise<Restored | null> {
    return this.serial.run(() => this.pullNow(options));
  }

  /** The store the cache serves, once open (a writer's with its publisher). */
  attach(store: Store, publisher: Publisher | null = null): void {
    this.store = store;
    this.publisher = publisher;
    this.storeHolds = new Set(this.held); // it was opened with resident()
  }

  /**
   * Fetches the files of `names` and makes them resident in the store, dropping the collections
   * read longest ago past the bound.
   */
  ensure(names: string[]): Promise<void> {
    return this.serial.run(async () => {
      const fresh = names.filter((n) => !this.held.has(n));
      for (const n of names) {
        this.held.delete(n);
        this.held.add(n);
      }
      // Calls that missed the same collections at once: the first one's fetch serves them all.
      if (this.store && names.every((n) => this.storeHolds.has(n))) return;
      try {
        if (this.publisher) await this.fetchForWriter(names);
        else await this.fetchHeld();
      } catch (err) {
        for (const n of fresh) this.held.delete(n);
        const list = names.map((n) => `'${n}'`).join(', ');
        throw new StoreError(503, `collection ${list} could not be fetched from the object store (${(err as Error).message}); retry`);
      }
      this.counters.fetched += fresh.length;
      // Before the store is open (a writer whose log needs these): it opens with resident() next,
      // so nothing held may be dropped now.
      if (!this.store) return;
      // A writer's settle that fails (the publish) leaves the bound to the next one: the call runs.
      if (this.publisher) await this.settleWriter(names).catch(() => undefined);
      else await this.settle(names, true);
    });
  }

  /**
   * A writer past the bound drops the collections used longest ago (after a publish, whose files
   * count), but the one used last: a collection larger than the bound that takes every write
   * would otherwise be dropped and fetched again at each publish.
   */
  settleSoon(): Promise<void> {
    return this.serial.run(async () => {
      const store = this.store;
      if (!this.publisher || !store) return;
      const uses = await store.collectionReads();
      const last = Object.keys(uses).reduce<string | null>((a, b) => (a === null || uses[b] > uses[a] ? b : a), null);
      await this.settleWriter(last !== null && uses[last] > 0 ? [last] : []);
    });
  }

  /**
   * A writer's fetch: the files its last publish names for `names` (those it does not hold keep
   * the files they had when it let them go), then the store holds them. Before the store is open
   * (its log changed rows of these collections), the files only.
   */
  private async fetchForWriter(names: string[]): Promise<void> {
    const { objects, dir } = this.options;
    const record = this.publisher?.published() ?? this.restored?.record;
    if (!record) throw new Error('the collection cache restored nothing yet');
    const missing = names.filter((n) => !this.storeHolds.has(n));
    const files = filesByCollection(record);
    const wanted = new Set(missing.flatMap((n) => (files.get(n) ?? []).map(([name]) => name)));
    await fetchFiles(objects, record, dir, (name) => wanted.has(name), null);
    if (!this.store) return;
    await this.store.hold(missing);
    for (const n of missing) this.storeHolds.add(n);
  }

  /**
   * A writer's settle: the store's resident collections by last use; past the bound those used
   * longest ago (never those in `keep`) are let go, published, and their files removed.
   */
  private async settleWriter(keep: string[]): Promise<void> {
    const store = this.store as Store;
    const uses = await store.collectionReads();
    const resident = Object.keys(uses).sort((a, b) => uses[a] - uses[b]);
    const sizes = await this.writerSizes(store, resident);
    this.held = new Set([...resident.filter((n) => !keep.includes(n)), ...keep.filter((n) => n in uses)]);
    this.heldBytes = sum(sizes);
    const victims: string[] = [];
    for (const n of this.held) {
      if (this.heldBytes <= this.options.bytes) break;
      if (keep.includes(n)) continue;
      victims.push(n);
      this.heldBytes -= sizes.get(n) ?? 0;
    }
    if (victims.length > 0) {
      await store.release(victims);
      for (const n of victims) {
        this.held.delete(n);
        this.storeHolds.delete(n);
      }
      this.counters.evicted += victims.length;
      await this.publisher?.durable();
    }
    this.storeHolds = new Set(this.held);
    await this.removeReleased(store);
  }

  /** Bytes of each resident collection's segment files in the writer's directory, by its manifest now. */
  private async writerSizes(store: Store, resident: string[]): Promise<Map<string, number>> {
    const point = await store.replication();
    const owners = segmentOwners(point);
    const sizes = new Map(resident.map((n) => [n, 0]));
    await Promise.all(
      point.files.map(async (name) => {
        const owner = ownerOf(owners, name);
        if (owner === undefined || !sizes.has(owner)) return;
        const size = await fs.stat(path.join(this.options.dir, name)).then(
          (st) => st.size,
          () => 0,
        );
        sizes.set(owner, (sizes.get(owner) ?? 0) + size);
      }),
    );
    return sizes;
  }

  /**
   * A writer removes the files of the collections it does not hold that its last publish names
   * (those are in the object store); temporary files of fetches a killed process left go too.
   * The publish is read before the resident collections: a collection it names existed then, so
   * it is either resident now or was let go (a collection is let go only in this cache's queue).
   */
  private async removeReleased(store: Store): Promise<void> {
    const record = this.publisher?.published();
    if (!record) return;
    const resident = new Set(Object.keys(await store.collectionReads()));
    const owners = segmentOwners(record);
    const names = await fs.readdir(this.options.dir);
    const doomed = names.filter((n) => {
      if (isTemporary(n)) return true;
      const owner = ownerOf(owners, n);
      return owner !== undefined && !resident.has(owner) && record.files[n] !== undefined;
    });
    await Promise.all(doomed.map((n) => fs.rm(path.join(this.options.dir, n), { force: true })));
  }

  /**
   * Drops the collections read longest ago while the held ones pass the bound (never those in
   * `keep`), then has the store hold what is left (when it changed, or `reload`) and removes the
   * files it no longer needs.
   */
  private async settle(keep: string[], reload: boolean): Promise<void> {
    const store = this.store;
    if (store) await this.orderByReads(store, keep);
    const sizes = await this.sizes();
    this.heldBytes = sum(sizes);
    let changed = reload;
    for (const n of [...this.held]) {
      if (this.heldBytes <= this.options.bytes) break;
      if (keep.includes(n)) continue;
      this.held.delete(n);
      this.heldBytes -= sizes.get(n) ?? 0;
      this.counters.evicted++;
      changed = true;
    }
    // Also when the held set changed by itself (a dropped collection forgotten): the store must
    // not go on counting it held, or a later one of the same name would be opened without its files.
    changed ||= this.held.size !== this.storeHolds.size || [...this.held].some((n) => !this.storeHolds.has(n));
    if (store && changed) {
      // The store stops reading the dropped collections' files before they are removed (reads
      // already running keep their mapped files).
      this.storeHolds = new Set();
      await store.setResident(this.resident());
      this.storeHolds = new Set(this.held);
    }
    await this.removeUnwanted();
    const record = this.restored?.record;
    if (record) {
      const want = this.wanted(record);
      await writeRestoredKeys(this.options.dir, Object.fromEntries(Object.entries(record.files).filter(([name]) => want(name))));
    }
  }

  /**
   * Orders the held collections by their last read: those the store saw no read of since it last
   * loaded keep their order, those read since follow by time, and `keep` (being fetched) comes
   * last. Collections the manifest no longer lists are forgotten.
   */
  private async orderByReads(store: Store, keep: string[]): Promise<void> {
    const reads = await store.collectionReads();
    // A dropped collection is no longer held (one created again since holds only log rows).
    const listed = new Set(this.restored ? manifestOf(this.restored.record).collections.map((c) => c.name) : []);
    const others = [...this.held].filter((n) => !keep.includes(n) && listed.has(n));
    const unread = others.filter((n) => !reads[n]);
    const read = others.filter((n) => reads[n]).sort((a, b) => reads[a] - reads[b]);
    this.held = new Set([...unread, ...read, ...keep.filter((n) => this.held.has(n))]);
  }

  private async pullNow(options: Pick<RestoreOptions, 'signal' | 'reading'> = {}): Promise<Restored | null> {
    // A restart holds again what the previous process left in the directory, if it is current.
    const left = this.restored === null ? await readRestoredKeys(this.options.dir) : null;
    await this.restoreNewest(options);
    if (left) await this.holdWhatIsLeft(left);
    // Held collections may have grown past the bound; the store loads the newest state anyway.
    await this.settle([], false);
    return this.restored;
  }

  /**
   * Holds, within the bound and in the manifest's order, the collections whose every file of the
   * restored state is in the directory from the same object key (`left`: what the previous
   * process recorded).
   */
  private async holdWhatIsLeft(left: Record<string, string>): Promise<void> {
    const record = this.restored?.record;
    if (!record) return;
    let bytes = 0;
    for (const [collection, named] of filesByCollection(record)) {
      const sizes = await Promise.all(
        named.map(([name, key]) =>
          left[name] === key
            ? fs.stat(path.join(this.options.dir, name)).then(
                (s) => s.size,
                () => -1,
              )
            : -1,
        ),
      );
      const size = sizes.reduce((a, b) => (a < 0 || b < 0 ? -1 : a + b), 0);
      if (size < 0 || bytes + size > this.options.bytes) continue;
      bytes += size;
      this.held.add(collection);
    }
  }

  private async restoreNewest(options: Pick<RestoreOptions, 'signal' | 'reading'> = {}): Promise<void> {
    const { objects, prefix, dir } = this.options;
    this.restored = await restore(objects, prefix, dir, { ...options, previous: this.restored, wanted: this.wanted });
  }

  /** The held collections' files of the restored state; a state the writer has collected meanwhile is restored anew first. */
  private async fetchHeld(): Promise<void> {
    const { objects, dir } = this.options;
    const restored = this.restored;
    if (!restored) throw new Error('the collection cache restored nothing yet');
    try {
      await fetchFiles(objects, restored.record, dir, this.wanted(restored.record), restored);
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      await this.restoreNewest();
    }
  }

  /** Bytes of each held collection's files in the directory. */
  private async sizes(): Promise<Map<string, number>> {
    const files = this.restored ? filesByCollection(this.restored.record) : new Map<string, [string, string][]>();
    const bytesOf = async (collection: string) => {
      const sizes = await Promise.all(
        (files.get(collection) ?? []).map(([name]) =>
          fs.stat(path.join(this.options.dir, name)).then(
            (s) => s.size,
            () => 0,
          ),
        ),
      );
      return sizes.reduce((a, b) => a + b, 0);
    };
    return new Map(await Promise.all([...this.held].map(async (n) => [n, await bytesOf(n)] as const)));
  }

  /**
   * Removes the segment files the restored state does not want (dropped collections', superseded
   * segments'), and the temporary files of fetches a killed process left behind: every fetch into
   * the directory runs in this cache's queue, so none is being written now.
   */
  private async removeUnwanted(): Promise<void> {
    const record = this.restored?.record;
    if (!record) return;
    const want = this.wanted(record);
    const names = await fs.readdir(this.options.dir);
    const doomed = names.filter((n) => isTemporary(n) || (SEGMENT_FILE.test(n) && !want(n)));
    await Promise.all(doomed.map((n) => fs.rm(path.join(this.options.dir, n), { force: true })));
  }
}
