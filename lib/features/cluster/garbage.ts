// A writer's sweep of its store's objects: after a publish it deletes what no published state
// names any more (superseded generations' files and log chunks, what a superseded writer uploaded
// but never published). A delete is the one mutation that could destroy what a successor
// published, so the sweep proves before every batch that this writer's place still holds:
//
// - It lists first and checks after: CURRENT still has the ETag this writer published last (HEAD),
//   and the lease object, read back, still shows this writer at its epoch within its TTL. A key
//   listed before a check that passed was made before any successor held the lease, so a
//   successor's uploads are never candidates, and what it claimed is what this writer published.
// - A batch spares what this writer's newest publish names and what it is uploading for the next
//   one (read at the batch, after the check): the sweep runs beside publishes, never holding up a
//   write's acknowledgement.
// - A key goes only once it has been unnamed for the grace period, counted on this process's
//   monotonic clock from the first listing that showed it unnamed: a reader loading an older state
//   finds its objects for that long, and a race that slipped past the checks (a process paused
//   between a check and its deletes) still cannot delete what a successor made meanwhile.
// - A fenced or closing writer sweeps nothing, and a sweep under way stops at its next request.
import { performance } from 'node:perf_hooks';
import { currentKey, namedBy, type Published } from './current';
import type { ObjectStore } from './object_store';
import { eachLimited, TRANSFER_CONCURRENCY } from './transfers';

/** --gc-grace's default: longer than any reader's load of a state, and cheap (superseded objects only). */
export const DEFAULT_GC_GRACE_MS = 5 * 60_000;

/** Keys deleted per check of CURRENT and the lease. */
const DELETE_BATCH = 64;

export interface GarbageOptions {
  objects: ObjectStore;
  /** The store's key prefix, without a trailing slash. */
  prefix: string;
  /** What this writer published last (CURRENT as it wrote it), or null before its first publish. */
  published(): Published | null;
  /** Keys this writer is uploading, or uploaded, for a publish that has not landed yet. */
  unpublished(): ReadonlySet<string>;
  /** Whether the lease object still shows this writer holding it, read from the object store. */
  verifyLease(): Promise<boolean>;
  /** How long a key stays unnamed before it is deleted. */
  graceMs: number;
}

export class GarbageCollector {
  /** Key -> when a listing first showed it unnamed (monotonic ms). */
  private unnamedSince = new Map<string, number>();
  private readonly stopping = new AbortController();
  /** For /metrics: objects deleted; sweeps stopped because CURRENT or the lease was not this writer's; sweeps that failed (the object store refusing or failing). */
  readonly counters = { deleted: 0, refused: 0, failed: 0 };

  constructor(private readonly options: GarbageOptions) {}

  /** One sweep; it deletes nothing once the checks fail. A failure (not a stop) is counted and thrown. */
  async sweep(): Promise<void> {
    try {
      await this.sweepOnce();
    } catch (err) {
      if (!this.stopping.signal.aborted) this.counters.failed++;
      throw err;
    }
  }

  private async sweepOnce(): Promise<void> {
    const { objects, prefix, graceMs } = this.options;
    const { signal } = this.stopping;
    // What the listing is judged against: the newest publish before it.
    const judge = this.options.published();
    if (judge === null || signal.aborted) return;
    const listed: string[] = [];
    for (const under of ['files/', 'log/']) for await (const { key } of objects.listAll(`${prefix}/${under}`, { signal })) listed.push(key);
    const named = namedBy(judge.record);
    const now = performance.now();
    this.unnamedSince = new Map(listed.filter((key) => !named(key)).map((key) => [key, this.unnamedSince.get(key) ?? now]));
    const doomed = [...this.unnamedSince].filter(([, since]) => now - since >= graceMs).map(([key]) => key);
    for (let i = 0; i < doomed.length; i += DELETE_BATCH) {
      const spared = await this.sparedIfOwnPlace();
      if (spared === null) {
        // Stopped (fenced, closing) is not a refusal by the bucket.
        if (!signal.aborted) this.counters.refused++;
        return;
      }
      await eachLimited(
        doomed.slice(i, i + DELETE_BATCH).filter((key) => !spared(key)),
        TRANSFER_CONCURRENCY,
        async (key) => {
          await objects.delete(key, { signal });
          this.unnamedSince.delete(key);
          this.counters.deleted++;
        },
      );
    }
  }

  /** Stops sweeping for good: the writer was fenced or is closing. */
  stop(): void {
    this.stopping.abort(new Error('the sweep was stopped: this writer is fenced or closing'));
  }

  /**
   * Null unless CURRENT is still what this writer published last and the lease still its own (any
   * failure to tell counts as no); else which keys a batch must spare: those that publish names and
   * those uploaded for the next, both read after the check.
   */
  private async sparedIfOwnPlace(): Promise<((key: string) => boolean) | null> {
    const { objects, prefix } = this.options;
    const { signal } = this.stopping;
    let published: Published | null;
    let current: string | null;
    let lease: boolean;
    do {
      if (signal.aborted) return null;
      published = this.options.published();
      [current, lease] = await Promise.all([
        objects.head(currentKey(prefix), { signal }).then(
          (info) => info.etag,
          () => null,
        ),
        this.options.verifyLease().catch(() => false),
      ]);
      // This writer's own publish landing during the check is no reason to stop: check again.
    } while (published !== this.options.published());
    if (!lease || signal.aborted || published === null || current !== published.etag) return null;
    const named = namedBy(published.record);
    const unpublished = this.options.unpublished();
    return (key) => named(key) || unpublished.has(key);
  }
}
