import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { NotFound, ObjectStoreError, OutcomeUnknown, PreconditionFailed } from './errors';
import type { ObjectStore, PutOptions } from './object_store';

// The writer lease of one store prefix: a single JSON object in the object store, changed only by
// conditional writes, whose `epoch` is the fencing token (strictly increasing across holders).
//
// - Acquire: create it with If-None-Match: *; or replace a released one, or one seen UNCHANGED
//   (same ETag) for longer than its ttl on this process's monotonic clock, with If-Match on that
//   ETag and epoch + 1. No clock is compared across machines.
// - Hold: renew every ttl/3 with If-Match on the last ETag. The holder counts itself holding only
//   until ttl after the START of its last renewal known to have landed; past that it has "lapsed"
//   (writes must stop) and keeps trying: a later If-Match renewal that lands proves nobody took over.
// - Fenced: a renewal refused because the object changed to someone else's, or vanished, latches
//   `fenced` for good (event 'fenced'); this instance never holds the lease again.
// - Release: a released marker (same epoch) replaces the object, so a standby takes over at once
//   and the epoch survives; radosgw ignores If-Match on DELETE, so deleting would not be fenced.
// ETags here are content MD5s, so every write carries a random nonce: two writes never share an
// ETag, and a write whose outcome was unknown is recognised by its nonce when read back.

interface LeaseRecord {
  owner: string;
  epoch: number;
  ttl_ms: number;
  released: boolean;
  nonce: string;
  /** Wall-clock time of the write, for people reading the object; never compared. */
  written_at: string;
}

interface Observed {
  record: LeaseRecord;
  etag: string;
}

export interface WriterLeaseOptions {
  store: ObjectStore;
  /** The lease object's key, e.g. `${prefix}/lease.json`. */
  key: string;
  /** This instance's id, unique per process start. */
  owner: string;
  ttlMs: number;
  /** How often a standby looks at the lease (default ttl/10: each look is a small GET, and the takeover waits up to two of them). */
  pollMs?: number;
  /** Waited beyond a holder's ttl before taking over (default ttl/10). */
  marginMs?: number;
}

export type LeaseState = 'idle' | 'held' | 'lapsed' | 'fenced' | 'released';

const now = () => performance.now();

function parse(body: Buffer, key: string): LeaseRecord {
  const r = JSON.parse(body.toString('utf8')) as LeaseRecord;
  if (typeof r.owner !== 'string' || !Number.isSafeInteger(r.epoch) || !(r.ttl_ms > 0) || typeof r.nonce !== 'string') {
    throw new Error(`lease object ${key} is not a lease: ${body.toString('utf8').slice(0, 200)}`);
  }
  return r;
}

export class WriterLease extends EventEmitter {
  /** For /metrics: leases acquired, renewals landed, lapses (ttl passed unconfirmed), fencings. */
  readonly counters = { acquired: 0, renewed: 0, lost: 0, fenced: 0 };
  private current: LeaseState = 'idle';
  private epochHeld = 0;
  private etag = '';
  /** Monotonic start of the last write of ours known to have landed. */
  private confirmedAt = 0;
  /** Writes whose outcome is unknown: nonce -> monotonic start. */
  private readonly pending = new Map<string, number>();
  /** Someone else's lease: its ETag and when we first saw it (monotonic, on the answer). */
  private seen?: { etag: string; since: number };
  private renewTimer?: NodeJS.Timeout;
  private lapseTimer?: NodeJS.Timeout;
  private renewing?: Promise<void>;

  constructor(private readonly options: WriterLeaseOptions) {
    super();
  }

  get state(): LeaseState {
    return this.current;
  }

  /** True while the lease is ours and within ttl of its last confirmed renewal start. */
  held(): boolean {
    return this.current === 'held' && now() - this.confirmedAt < this.options.ttlMs;
  }

  get fenced(): boolean {
    return this.current === 'fenced';
  }

  get epoch(): number {
    return this.epochHeld;
  }

  /** `owner:epoch` of the lease this instance holds or last held (/cluster's lease_owner); undefined before. */
  get token(): string | undefined {
    return this.epochHeld ? `${this.options.owner}:${this.epochHeld}` : undefined;
  }

  /** One attempt to become the holder; true when this instance holds the lease. */
  async tryAcquire(): Promise<boolean> {
    if (this.current === 'fenced') return false;
    if (this.held()) return true;
    const seen = await this.observe();
    if (this.held()) return true;
    let condition: PutOptions;
    let epoch: number;
    if (!seen) {
      condition = { ifNoneMatch: '*' };
      epoch = 1;
    } else if (seen.record.released || this.unchangedFor(seen) > seen.record.ttl_ms + (this.options.marginMs ?? this.options.ttlMs / 10)) {
      condition = { ifMatch: seen.etag };
      epoch = seen.record.epoch + 1;
    } else {
      return false;
    }
    if (await this.write(epoch, false, condition)) return true;
    await this.observe(); // adopts our write if it landed after all
    return this.held();
  }

  /** Polls until this instance holds the lease (a standby's wait); rejects when `signal` aborts. */
  async waitForLease(signal?: AbortSignal): Promise<void> {
    const pollMs = this.options.pollMs ?? this.options.ttlMs / 10;
    for (;;) {
      signal?.throwIfAborted();
      try {
        if (await this.tryAcquire()) return;
      } catch (e) {
        if (!(e instanceof ObjectStoreError)) throw e; // the store failing is waited out like a live holder
      }
      await sleep(pollMs, undefined, { signal });
    }
  }

  /**
   * Whether the lease object, read back now, still shows this instance holding it at its epoch
   * (and its own clock agrees): what a writer checks before it deletes anything.
   */
  async verify(): Promise<boolean> {
    if (!this.held()) return false;
    const seen = await this.observe();
    return seen !== undefined && seen.record.owner === this.options.owner && seen.record.epoch === this.epochHeld && !seen.record.released && this.held();
  }

  /** Hands the lease over at once (a released marker, If-Match); stops renewing either way. */
  async release(): Promise<void> {
    const wasHeld = this.held();
    this.stop();
    await this.renewing;
    if (wasHeld && this.current === 'held') {
      await this.write(this.epochHeld, true, { ifMatch: this.etag }).catch(() => false);
    }
    if (this.current !== 'fenced') this.current = 'released';
  }

  /** Renews at once (and resumes the timer): how a writer checks the lease before it commits. True while held. */
  async renewNow(): Promise<boolean> {
    await this.renewing;
    if (this.current === 'held' || this.current === 'lapsed') {
      clearTimeout(this.renewTimer);
      await this.renew();
    }
    return this.held();
  }

  /** Stops the timers without touching the object (what a crashed holder looks like to others). */
  stop(): void {
    clearTimeout(this.renewTimer);
    clearTimeout(this.lapseTimer);
    this.renewTimer = this.lapseTimer = undefined;
  }

  /** Writes our record under `condition`; true once it landed, false when refused or unknown. */
  private async write(epoch: number, released: boolean, condition: PutOptions): Promise<boolean> {
    const nonce = randomBytes(8).toString('hex');
    const record: LeaseRecord = { owner: this.options.owner, epoch, ttl_ms: this.options.ttlMs, released, nonce, written_at: new Date().toISOString() };
    const start = now();
    try {
      const { etag } = await this.options.store.put(this.options.key, JSON.stringify(record), { ...condition, contentType: 'application/json' });
      if (!released) this.confirm(epoch, etag, start);
      return true;
    } catch (e) {
      if (e instanceof OutcomeUnknown) this.pending.set(nonce, start);
      else if (!(e instanceof PreconditionFailed)) throw e;
      return false;
    }
  }

  /** Reads the lease (undefined: none); adopts a write of ours that landed unseen, tracks how long another's has stood still. */
  private async observe(): Promise<Observed | undefined> {
    let got: { body: Buffer; etag: string };
    try {
      got = await this.options.store.get(this.options.key);
    } catch (e) {
      if (e instanceof NotFound) return undefined;
      throw e;
    }
    const seen = { record: parse(got.body, this.options.key), etag: got.etag };
    const started = seen.record.owner === this.options.owner ? this.pending.get(seen.record.nonce) : undefined;
    if (started !== undefined && !seen.record.released) this.confirm(seen.record.epoch, seen.etag, started);
    else if (this.seen?.etag !== seen.etag) this.seen = { etag: seen.etag, since: now() };
    return seen;
  }

  /** How long `seen` has stood unchanged, on our clock, from the first answer that showed it. */
  private unchangedFor(seen: Observed): number {
    return this.seen?.etag === seen.etag ? now() - this.seen.since : 0;
  }

  /** Our write that started at `start` landed with `etag`: the lease is ours until start + ttl. */
  private confirm(epoch: number, etag: string, start: number): void {
    if (this.current === 'fenced') return;
    const fresh = this.current !== 'held' && this.current !== 'lapsed';
    this.epochHeld = epoch;
    this.etag = etag;
    this.confirmedAt = Math.max(this.confirmedAt, start);
    this.pending.clear();
    this.current = 'held';
    if (fresh) {
      this.counters.acquired++;
      this.scheduleRenewal(this.options.ttlMs / 3);
    } else {
      this.counters.renewed++;
    }
    clearTimeout(this.lapseTimer);
    this.lapseTimer = setTimeout(() => this.lapse(), this.confirmedAt + this.options.ttlMs - now());
    this.lapseTimer.unref();
  }

  private lapse(): void {
    if (this.current !== 'held' || this.held()) return;
    this.current = 'lapsed';
    this.counters.lost++;
    this.emit('lost');
  }

  private fence(by: Observed | undefined): void {
    this.stop();
    this.current = 'fenced';
    this.counters.fenced++;
    this.emit('fenced', by ? `${by.record.owner}:${by.record.epoch}` : null);
  }

  private scheduleRenewal(delayMs: number): void {
    this.renewTimer = setTimeout(
      () => {
        this.renewing = this.renew().finally(() => (this.renewing = undefined));
      },
      Math.max(0, delayMs),
    );
    this.renewTimer.unref();
  }

  /**
   * One renewal. Refused or unanswered, it reads the lease back: still our last ETag (or our
   * unanswered write, now adopted) means try again next tick; anything else, someone else's
   * lease, a released marker, none, or garbage, fences. A store failure is retried next tick.
   */
  private async renew(): Promise<void> {
    const start = now();
    try {
      if (!(await this.write(this.epochHeld, false, { ifMatch: this.etag }))) {
        const seen = await this.observe();
        if (seen?.etag !== this.etag) return this.fence(seen);
      }
    } catch (e) {
      if (!(e instanceof ObjectStoreError)) return this.fence(undefined);
    }
    if (this.current === 'held' || this.current === 'lapsed') this.scheduleRenewal(this.options.ttlMs / 3 - (now() - start));
  }
}
