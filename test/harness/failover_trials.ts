// Failover trials under load (test/cluster/faults.test.ts, bench:cluster): a cluster of `tessera
// serve` members over one radosgw prefix, a writer, a standby and a reader, with clients upserting
// to every writer candidate throughout and an observer checking that nothing the published CURRENT
// names is ever missing from the bucket. Each trial stops (SIGSTOP) or kills the writer; the
// standby takes over, a stopped writer resumes and must find itself fenced; then every write
// acknowledged so far must be on the new writer, on the reader after a refresh, and in a restore
// from scratch. A paused writer's garbage collection once deleted what its successor published.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ObjectStoreError } from '../../lib/features/cluster/errors';
import type { ObjectStore } from '../../lib/features/cluster/object_store';
import { chunkKey, type CurrentRecord, readCurrent } from '../../lib/features/cluster/current';
import { restore } from '../../lib/features/cluster/restore';
import { Store } from '../../lib/index';
import type { Radosgw } from './radosgw_boot';
import { sleep, until } from './until';

export const LEASE_TTL_MS = 3000;
/** Upsert loops per writer candidate, each one request at a time. */
const CLIENT_LOOPS = 4;
const BATCH_RECORDS = 5;
/** Bound on one client request: a stopped process never answers. */
const REQUEST_TIMEOUT_MS = 2000;
/** A loop whose write was refused (a standby, a fenced writer) waits this long, not to spin the cores. */
const REFUSED_PAUSE_MS = 50;
/**
 * Each writer candidate is sent POST /flush this often: a checkpoint publishes a new generation and
 * collects garbage. Between two, the log grows to hundreds of chunks under this load, so a takeover
 * has a real log to read, and what a collection wrongly deletes stays unrepaired for a while.
 */
const FLUSH_EVERY_MS = 5000;
/** Between the observer's passes. */
const OBSERVE_EVERY_MS = 25;
/** A fault at a random moment comes within this long of the standby waiting. */
const RANDOM_MOMENT_MS = LEASE_TTL_MS;
const STARTUP_BOUND_MS = 30_000;
const FAILOVER_WAIT_BOUND_MS = 60_000;
const CATCH_UP_BOUND_MS = 15_000;

/**
 * `stop-after-publish`: SIGSTOP as soon as a POST /flush on the writer answered, while the garbage
 * collection after that publish runs; `stop-after-renewal`: SIGSTOP as soon as the lease object
 * shows a renewal landed, the latest the standby can take over; `stop-at-random`: SIGSTOP at a
 * random moment; `kill`: SIGKILL.
 */
export type Fault = 'stop-after-publish' | 'stop-after-renewal' | 'stop-at-random' | 'kill';
const FAULTS: Fault[] = ['stop-after-publish', 'stop-after-renewal', 'stop-at-random', 'kill'];

/** The faults in turn, `n` trials. */
export const faultSchedule = (n: number): Fault[] => Array.from({ length: n }, (_, i) => FAULTS[i % FAULTS.length]);

/** A started `tessera serve`; `stop()` SIGKILLs it. */
export interface Member {
  url: string;
  proc: ChildProcess;
  stop(): Promise<unknown>;
}

/** Starts `tessera serve ARGS --port 0` with `env` in its environment; resolves once it listens. */
export type Spawn = (args: string[], env: NodeJS.ProcessEnv) => Promise<Member>;

export interface TrialOptions {
  gateway: Radosgw;
  /** Created if missing; the trials use a new prefix in it. */
  bucket: string;
  spawn: Spawn;
  /** One trial per fault, in order. */
  faults: Fault[];
  log?: (line: string) => void;
}

export interface TrialResult {
  kind: Fault;
  /** From the fault to the standby's first acknowledged write. */
  failover_ms: number;
  /** Writes acknowledged since the first trial began (ids). */
  acked_total: number;
  lost_on_writer: number;
  lost_on_reader: number;
  /** Missing from a restore into an empty directory (all of them when that restore failed). */
  lost_on_fresh: number;
  /** Writes the stopped writer acknowledged after it resumed (requests). */
  late_acks_by_old_writer: number;
}

export interface TrialsResult {
  ttl_s: number;
  trials: TrialResult[];
  /** Acknowledged ids missing in any check. */
  lost_acknowledged_writes: number;
  objects_deleted_while_named: number;
  deleted_while_named_keys: string[];
}

/** A member this run started: a name for messages, and whether clients still send it writes. */
interface Running {
  name: string;
  member: Member;
  loaded: boolean;
  /** Writes it answered with a refusal. */
  refusals: number;
}

interface Ack {
  ids: string[];
  by: Running;
  at: number;
}

const now = () => performance.now();

/** POSTs `body` to `route`: the answer's status, 0 when none came. */
async function post(target: Running, route: string, body?: string): Promise<number> {
  try {
    const res = await fetch(target.member.url + route, { method: 'POST', body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** GETs `route`: the answer's status (0 when none came) and JSON body. */
// biome-ignore lint/suspicious/noExplicitAny: the fields of each route's answer that a wait reads
async function getJson(target: Running, route: string): Promise<{ status: number; json: any }> {
  try {
    const res = await fetch(target.member.url + route, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, json: await res.json().catch(() => undefined) };
  } catch {
    return { status: 0, json: undefined };
  }
}

/** The ids of collection `c` a member serves, or none when it cannot answer. */
async function servedIds(target: Running): Promise<Set<string>> {
  const res = await fetch(`${target.member.url}/collections/c/records`, { signal: AbortSignal.timeout(CATCH_UP_BOUND_MS) }).catch(() => null);
  if (res?.status !== 200) return new Set();
  return new Set(((await res.json()) as { id: string }[]).map((r) => r.id));
}

const missing = (acked: Set<string>, held: Set<string>) => [...acked].filter((id) => !held.has(id));

/** Upserts of new ids to every writer candidate, and flushes, recording what each acknowledged. */
class Load {
  readonly acks: Ack[] = [];
  private next = 0;
  private readonly loops: Promise<void>[] = [];

  /** Loads `target` until its `loaded` is cleared. */
  start(target: Running): void {
    target.loaded = true;
    for (let i = 0; i < CLIENT_LOOPS; i++) this.loops.push(this.upserts(target));
    this.loops.push(this.flushes(target));
  }

  private async upserts(target: Running): Promise<void> {
    while (target.loaded) {
      const ids = Array.from({ length: BATCH_RECORDS }, () => `w${this.next++}`);
      const status = await post(target, '/collections/c/upsert', JSON.stringify({ records: ids.map((id, i) => ({ id, vector: [1, i, 0, 0] })) }));
      if (status === 200) {
        this.acks.push({ ids, by: target, at: now() });
        continue;
      }
      if (status !== 0) target.refusals++;
      await sleep(REFUSED_PAUSE_MS);
    }
  }

  private async flushes(target: Running): Promise<void> {
    while (target.loaded) {
      await post(target, '/flush');
      await sleep(FLUSH_EVERY_MS);
    }
  }

  ids(): Set<string> {
    return new Set(this.acks.flatMap((ack) => ack.ids));
  }

  /** Resolves once every loop has seen its target unloaded. */
  async drain(): Promise<void> {
    await Promise.all(this.loops);
  }
}

/**
 * Reads CURRENT, lists the prefix, reads CURRENT again; when both reads agree, every object that
 * CURRENT names must be listed: its files, the chunks of each closed log part, and of the growing
 * last part every chunk up to the highest ever listed under it.
 */
class Observer {
  /** Passes that found CURRENT unchanged across the listing, and checked it. */
  passes = 0;
  readonly deletedWhileNamed = new Set<string>();
  private readonly highestChunk = new Map<string, number>();
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly objects: ObjectStore,
    private readonly prefix: string,
  ) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pass();
      } catch (err) {
        // The gateway busy past the client's timeout: look again.
        if (!(err instanceof ObjectStoreError)) throw err;
      }
      await sleep(OBSERVE_EVERY_MS);
    }
  }

  private async pass(): Promise<void> {
    const before = await readCurrent(this.objects, this.prefix);
    if (before === null) return;
    const listed = new Set<string>();
    for await (const { key } of this.objects.listAll(`${this.prefix}/`)) listed.add(key);
    if ((await readCurrent(this.objects, this.prefix))?.etag !== before.etag) return;
    for (const key of this.named(before.record, listed)) if (!listed.has(key)) this.deletedWhileNamed.add(key);
    this.passes++;
  }

  private named(record: CurrentRecord, listed: Set<string>): string[] {
    const keys = Object.values(record.files);
    for (const part of record.logs) {
      const chunks = part.chunks ?? this.chunksSeen(part.prefix, listed);
      for (let seq = 0; seq < chunks; seq++) keys.push(chunkKey(part.prefix, seq));
    }
    return keys;
  }

  /** Chunks of a growing log part: up to the highest ever listed under its prefix. */
  private chunksSeen(prefix: string, listed: Set<string>): number {
    let highest = this.highestChunk.get(prefix) ?? -1;
    for (const key of listed) if (key.startsWith(prefix)) highest = Math.max(highest, Number(key.slice(prefix.length)));
    this.highestChunk.set(prefix, highest);
    return highest + 1;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

/** What `acked` the reader lacks after POST /refresh, refreshing until none or a bound (a reader that never catches up is counted, not thrown). */
async function missingOnReader(reader: Running, acked: Set<string>): Promise<string[]> {
  let lacking = [...acked];
  const caughtUp = async () => {
    await post(reader, '/refresh');
    lacking = missing(acked, await servedIds(reader));
    return lacking.length === 0;
  };
  await until(caughtUp, `${reader.name} refreshed to every acknowledged write`, CATCH_UP_BOUND_MS).catch(() => undefined);
  return lacking;
}

/** The ids of collection `c` in a restore into an empty directory; none when the restore fails. */
async function restoredIds(objects: ObjectStore, prefix: string, log: (line: string) => void): Promise<Set<string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-trial-restore-'));
  try {
    // A publish during a restore may collect what the restore was still to read (at once, under
    // --gc-grace 0s): what counts is a restore that CURRENT did not change under.
    const settled = async () => (await restore(objects, prefix, dir))?.etag === (await readCurrent(objects, prefix))?.etag;
    await until(settled, 'a restore that CURRENT did not change under', CATCH_UP_BOUND_MS);
    const store = await Store.open({ path: dir, readOnly: true });
    try {
      return new Set((await store.records('c')).map((r) => r.id));
    } finally {
      await store.close();
    }
  } catch (err) {
    log(`restore into an empty directory failed: ${(err as Error).message}`);
    return new Set();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runFailoverTrials({ gateway, bucket, spawn, faults, log = () => undefined }: TrialOptions): Promise<TrialsResult> {
  const prefix = `trials-${randomBytes(3).toString('hex')}`;
  const objects = gateway.store(bucket);
  await objects.createBucket();
  const env = gateway.env;
  const dirs: string[] = [];
  const members: Running[] = [];
  const load = new Load();
  const observer = new Observer(objects, prefix);
  const trials: TrialResult[] = [];
  const lost = new Set<string>();

  /** Every member's flags, over its own new --data; `--gc-grace 0s`, so that what protects a successor's objects is the sweep's checks alone. */
  const start = async (role: string, ...more: string[]): Promise<Running> => {
    const data = mkdtempSync(path.join(tmpdir(), 'tessera-trial-'));
    dirs.push(data);
    const args = [
      '--cluster',
      `s3://${bucket}/${prefix}`,
      '--cluster-endpoint',
      gateway.endpoint,
      '--lease-ttl',
      `${LEASE_TTL_MS / 1000}s`,
      '--data',
      data,
      '--dimension',
      '4',
      '--gc-grace',
      '0s',
      ...more,
    ];
    const running: Running = { name: `${role}-${members.length + 1}`, member: await spawn(args, env), loaded: false, refusals: 0 };
    members.push(running);
    return running;
  };
  const alive = ({ name, member: { proc } }: Running) => {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${name} exited (${proc.exitCode ?? proc.signalCode})`);
    return true;
  };
  const ready = async (m: Running) => alive(m) && (await getJson(m, '/ready')).status === 200;
  const kill = async (m: Running) => {
    m.loaded = false;
    await m.member.stop();
  };
  const elapse = (from: number, ms: number, what: string) => until(() => now() - from >= ms, what, ms + 1000);

  try {
    let writer = await start('writer');
    await until(() => ready(writer), `${writer.name} ready`, STARTUP_BOUND_MS);
    load.start(writer);
    const reader = await start('reader', '--cluster-reader');
    await until(() => ready(reader), `${reader.name} ready`, STARTUP_BOUND_MS);

    for (const [i, kind] of faults.entries()) {
      const standby = await start('standby', '--standby');
      load.start(standby);
      const waiting = async () => alive(standby) && /standby: waiting for the writer lease/.test((await getJson(standby, '/collections')).json?.error ?? '');
      await until(waiting, `${standby.name} waiting for the writer lease`, STARTUP_BOUND_MS);

      const old = writer;
      if (kind === 'stop-after-publish') {
        await until(async () => (await post(old, '/flush')) === 200, `a publish by ${old.name}`, STARTUP_BOUND_MS);
      } else if (kind === 'stop-after-renewal') {
        const leaseEtag = async () => (await objects.get(`${prefix}/lease.json`)).etag;
        const renewed = await leaseEtag();
        await until(async () => (await leaseEtag()) !== renewed, `a lease renewal by ${old.name}`, STARTUP_BOUND_MS);
      } else {
        await elapse(now(), Math.random() * RANDOM_MOMENT_MS, 'a random moment');
      }
      if (kind === 'kill') void kill(old);
      else old.member.proc.kill('SIGSTOP');
      const faultAt = now();
      const firstAck = () => load.acks.find((ack) => ack.by === standby && ack.at > faultAt);
      const failover = until(() => alive(standby) && firstAck() !== undefined, `${standby.name} acknowledging writes`, FAILOVER_WAIT_BOUND_MS);
      failover.catch(() => undefined); // awaited below, after a stopped writer's resumption

      let resumedAt = Number.POSITIVE_INFINITY;
      if (kind !== 'kill') {
        await elapse(faultAt, 2 * LEASE_TTL_MS, 'the writer paused for 2 x TTL');
        // Resuming before the standby took the lease would be a pause nobody noticed (serve.test.ts), not a fencing.
        await until(
          async () => alive(standby) && (await getJson(standby, '/cluster')).json?.holds_writer_handle === true,
          `${standby.name} holding the lease`,
          FAILOVER_WAIT_BOUND_MS,
        );
        old.member.proc.kill('SIGCONT');
        resumedAt = now();
        const fenced = async () => (await getJson(old, '/cluster')).json?.fenced === true && (await getJson(old, '/ready')).status === 503;
        await until(fenced, `${old.name} fenced after it resumed`, STARTUP_BOUND_MS);
        // A moment amid the load, for whatever the resumed writer still does (its collection) to show.
        const refusals = old.refusals;
        const passes = observer.passes;
        await until(() => old.refusals >= refusals + CLIENT_LOOPS && observer.passes >= passes + 2, `${old.name} refusing writes`, STARTUP_BOUND_MS);
        await kill(old);
      }
      await failover;
      writer = standby;

      const acked = load.ids();
      const onWriter = missing(acked, await servedIds(writer));
      const onFresh = missing(acked, await restoredIds(objects, prefix, log));
      const onReader = await missingOnReader(reader, acked);
      for (const id of [...onWriter, ...onReader, ...onFresh]) lost.add(id);
      const trial: TrialResult = {
        kind,
        failover_ms: Math.round(firstAck()!.at - faultAt),
        acked_total: acked.size,
        lost_on_writer: onWriter.length,
        lost_on_reader: onReader.length,
        lost_on_fresh: onFresh.length,
        late_acks_by_old_writer: load.acks.filter((ack) => ack.by === old && ack.at > resumedAt).length,
      };
      trials.push(trial);
      log(`trial ${i + 1}/${faults.length} ${JSON.stringify(trial)}, objects deleted while named so far: ${observer.deletedWhileNamed.size}`);
    }
  } catch (err) {
    const deleted = [...observer.deletedWhileNamed];
    throw new Error(
      `after ${trials.length} trials: ${(err as Error).message}; objects deleted while named so far: ${deleted.length} ${deleted.slice(0, 10).join(' ')}`,
      { cause: err },
    );
  } finally {
    await Promise.all(members.map(kill));
    await load.drain();
    await observer.stop();
    objects.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  const deleted = [...observer.deletedWhileNamed].sort();
  return {
    ttl_s: LEASE_TTL_MS / 1000,
    trials,
    lost_acknowledged_writes: lost.size,
    objects_deleted_while_named: deleted.length,
    deleted_while_named_keys: deleted,
  };
}
