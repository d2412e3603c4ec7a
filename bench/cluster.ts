// bench:cluster. Namespaced part: 1,000 tenant stores of real vectors (Fashion-MNIST, 784 dims)
// behind one --namespaced server whose warm set holds only some of them: the first search of a cold
// (evicted) tenant, which opens its store, against a search of a warm one in the same run, and what
// the process holds with the warm set full (threads, RSS). Cluster part, on a real radosgw booted
// here: write acknowledgement of 1,000-record batches against a local-disk writer in the same run,
// a reader's lag after refresh, failover (writer SIGKILL to the standby's /ready 200), a reader's
// first search of a 1M-vector store with an empty and with a warm local copy, and a bounded reader
// (--cache-bytes) whose first search of a small collection beside the 1M one fetches only that one;
// then failover trials under load (test/harness/failover_trials.ts): the writer stopped right after
// a publish or a lease renewal, stopped at a random moment, or killed, trial after trial, every
// acknowledged write checked on the new writer, a refreshed reader and a fresh restore.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { faultSchedule, runFailoverTrials, type Spawn } from '../test/harness/failover_trials';
import { type Radosgw, startRadosgw } from '../test/harness/radosgw_boot';
import { emit, log, now, Rng, randomUnitVectors, summarize, writeVector } from './common';
import { FASHION_DIM, readImages, requireFashion } from './fashion_mnist';
import { CLI, post, type Server, start } from './http_rig';

/** namespaced | cluster | failover (the cluster part's failover trials alone); unset, both parts. */
const PART = process.env.BENCH_PART;
const TENANTS = Number(process.env.BENCH_TENANTS ?? 1000);
const RECORDS_PER_TENANT = 60;
const WARM_BYTES = 16 * 1024 * 1024;
const COLD_SAMPLES = 200;
const WARM_SAMPLES = 200;
const FILL_CONCURRENCY = 8;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

function vectorText(bytes: Uint8Array, row: number): string {
  const parts: string[] = new Array(FASHION_DIM);
  for (let j = 0; j < FASHION_DIM; j++) parts[j] = String(bytes[row * FASHION_DIM + j] / 255);
  return `[${parts.join(',')}]`;
}

type Images = ReturnType<typeof readImages>;

async function namespacedPart(images: Images): Promise<Record<string, unknown>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-ns-'));
  const server = await start(CLI, [
    'serve',
    '--namespaced',
    '--data',
    root,
    '--dimension',
    String(FASHION_DIM),
    '--distance',
    'Euclidean',
    '--port',
    '0',
    '--warm-bytes',
    String(WARM_BYTES),
    '--log-level',
    'warn',
  ]);
  try {
    log(`filling ${TENANTS} tenants x ${RECORDS_PER_TENANT} Fashion-MNIST vectors (warm set ${WARM_BYTES >> 20} MiB)`);
    const started = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: FILL_CONCURRENCY }, async () => {
        for (let t = next++; t < TENANTS; t = next++) {
          const first = (t * RECORDS_PER_TENANT) % (images.count - RECORDS_PER_TENANT);
          const records = Array.from({ length: RECORDS_PER_TENANT }, (_, i) => `{"id":"${i}","vector":${vectorText(images.bytes, first + i)}}`);
          await post(`${server.url}/ns/t${t}/collections/c/upsert`, `{"records":[${records.join(',')}]}`);
        }
      }),
    );
    const fillSeconds = (now() - started) / 1000;
    log(`filled in ${fillSeconds.toFixed(1)} s`);

    const query = `{"query":${vectorText(images.bytes, images.count - 1)},"top_k":10}`;
    const search = async (tenant: number) => {
      const t0 = now();
      await post(`${server.url}/ns/t${tenant}/search`, query);
      return now() - t0;
    };
    const warmNames = async () => new Set(((await (await fetch(`${server.url}/namespaces`)).json()) as { name: string }[]).map((e) => e.name));

    // Cold: tenants not in the warm set, each searched once (its first request since eviction).
    const cold: number[] = [];
    for (let t = 0; cold.length < COLD_SAMPLES && t < TENANTS; t += 3) {
      if ((await warmNames()).has(`t${t}`)) continue;
      cold.push(await search(t));
    }
    // Warm: one tenant searched again and again.
    const warmTenant = TENANTS - 1;
    await search(warmTenant);
    const warm: number[] = [];
    for (let i = 0; i < WARM_SAMPLES; i++) warm.push(await search(warmTenant));
    cold.sort((a, b) => a - b);
    warm.sort((a, b) => a - b);

    const status = fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8');
    const open = (await warmNames()).size;
    return {
      tenants: TENANTS,
      records_per_tenant: RECORDS_PER_TENANT,
      dimension: FASHION_DIM,
      warm_bytes: WARM_BYTES,
      open_tenants_at_end: open,
      fill_seconds: Number(fillSeconds.toFixed(1)),
      cold_first_request_ms: { p50: Number(percentile(cold, 0.5).toFixed(2)), p99: Number(percentile(cold, 0.99).toFixed(2)), samples: cold.length },
      warm_request_ms: { p50: Number(percentile(warm, 0.5).toFixed(2)), p99: Number(percentile(warm, 0.99).toFixed(2)) },
      cold_p99_over_warm_p50: Number((percentile(cold, 0.99) / percentile(warm, 0.5)).toFixed(1)),
      server_threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1]),
      server_rss_mb: Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024),
    };
  } finally {
    server.proc.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const BATCHES = 30;
const BATCH_RECORDS = 1000;
const LAG_SAMPLES = 10;
const BIG_RECORDS = Number(process.env.BENCH_BIG_RECORDS ?? 1_000_000);
const BIG_DIM = 128;
const BIG_BATCH = 10_000;
/** The bounded reader's case: a small collection beside the 1M one, read through --cache-bytes. */
const SMALL_RECORDS = 2_000;
const LAZY_CACHE_BYTES = 64 * 1024 * 1024;
const FAILOVER_TRIALS = Number(process.env.BENCH_FAILOVER_TRIALS ?? 20);

const tempDir = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `tessera-bench-${label}-`));

const getJson = async (url: string) => (await fetch(url)).json() as Promise<Record<string, number>>;

/** Polls until `holds`; resolves the milliseconds it took. */
async function timeUntil(holds: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<number> {
  const t0 = now();
  while (!(await holds().catch(() => false))) {
    if (now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return now() - t0;
}

const ready = async (server: Server) => (await fetch(`${server.url}/ready`)).status === 200;

/** Batches of real Fashion-MNIST records, as upsert bodies. */
function batchBodies(images: Images, count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, b) => {
    const records = Array.from({ length: BATCH_RECORDS }, (_, i) => {
      const row = (from + b * BATCH_RECORDS + i) % images.count;
      return `{"id":"${from + b * BATCH_RECORDS + i}","vector":${vectorText(images.bytes, row)}}`;
    });
    return `{"records":[${records.join(',')}]}`;
  });
}

/** Upserts each body in turn; resolves each acknowledgement's milliseconds. */
async function acknowledged(server: Server, bodies: string[]): Promise<number[]> {
  const ms: number[] = [];
  for (const body of bodies) {
    const t0 = now();
    await post(`${server.url}/collections/c/upsert`, body);
    ms.push(now() - t0);
  }
  return ms;
}

/** 1M seeded random unit vectors (synthetic: no real set of that size installs here) as upsert bodies. */
function* bigBodies(): Generator<Buffer> {
  const rng = new Rng(7);
  for (let first = 0; first < BIG_RECORDS; first += BIG_BATCH) {
    const n = Math.min(BIG_BATCH, BIG_RECORDS - first);
    const vectors = randomUnitVectors(rng, n, BIG_DIM);
    const buf = Buffer.alloc(n * (BIG_DIM * 14 + 40) + 32);
    let pos = buf.write('{"records":[');
    for (let i = 0; i < n; i++) {
      pos += buf.write(`${i ? ',' : ''}{"id":"${first + i}","vector":`, pos);
      pos = writeVector(buf, pos, vectors, i * BIG_DIM, BIG_DIM);
      pos += buf.write('}', pos);
    }
    pos += buf.write(']}', pos);
    yield buf.subarray(0, pos);
  }
}

async function clusterPart(images: Images): Promise<Record<string, unknown>> {
  log('booting radosgw');
  const gw = await startRadosgw({ memstoreBytes: 8 * 1024 ** 3 });
  Object.assign(process.env, gw.env);
  const servers: Server[] = [];
  const serve = async (args: string[]) => {
    const server = await start(CLI, ['serve', '--port', '0', '--log-level', 'warn', ...args]);
    servers.push(server);
    return server;
  };
  const member = (prefix: string, data: string, ...more: string[]) =>
    serve(['--cluster', `s3://bench/${prefix}`, '--cluster-endpoint', gw.endpoint, '--lease-ttl', '2s', '--data', data, ...more]);
  try {
    log(`write acknowledgement: ${BATCHES} batches of ${BATCH_RECORDS} Fashion-MNIST records, cluster writer and local writer`);
    const bodies = batchBodies(images, BATCHES);
    const local = await serve(['--data', tempDir('local'), '--dimension', String(FASHION_DIM), '--distance', 'Euclidean']);
    const writer = await member('ack', tempDir('writer'), '--dimension', String(FASHION_DIM), '--distance', 'Euclidean');
    await timeUntil(() => ready(writer), 'writer ready');
    await acknowledged(local, batchBodies(images, 2, 1e6)); // warm-up: connections, pools
    await acknowledged(writer, batchBodies(images, 2, 1e6));
    const localMs = await acknowledged(local, bodies);
    const clusterMs = await acknowledged(writer, bodies);
    const total = (ms: number[]) => ms.reduce((a, b) => a + b, 0);

    log('reader lag after refresh');
    const reader = await member('ack', tempDir('reader'), '--cluster-reader');
    await timeUntil(() => ready(reader), 'reader ready');
    const lag: number[] = [];
    for (const body of batchBodies(images, LAG_SAMPLES, 2e6)) {
      await post(`${writer.url}/collections/c/upsert`, body);
      const target = (await getJson(`${writer.url}/cluster`)).commit_version;
      lag.push(
        await timeUntil(async () => {
          await post(`${reader.url}/refresh`, '');
          return (await getJson(`${reader.url}/cluster`)).commit_version >= target;
        }, 'reader caught up'),
      );
    }

    log('failover');
    const standby = await member('ack', tempDir('standby'), '--standby');
    writer.proc.kill('SIGKILL');
    const failoverMs = await timeUntil(() => ready(standby), 'standby ready');
    const docs = (await getJson(`${standby.url}/stats`)) as unknown as { footprint: { doc_count: number } };

    log(`1M store: ${BIG_RECORDS} x ${BIG_DIM} synthetic vectors through a cluster writer`);
    const big = await member('big', tempDir('big'), '--dimension', String(BIG_DIM));
    await timeUntil(() => ready(big), 'big writer ready');
    const fill0 = now();
    for (const body of bigBodies()) {
      const r = await fetch(`${big.url}/collections/c/upsert`, { method: 'POST', body: new Uint8Array(body) });
      if (r.status !== 200) throw new Error(`upsert: ${r.status} ${await r.text()}`);
    }
    await post(`${big.url}/flush`, '');
    const fillS = (now() - fill0) / 1000;
    const axis = JSON.stringify(Array.from({ length: BIG_DIM }, (_, i) => (i === 0 ? 1 : 0)));
    const query = `{"query":${axis},"top_k":10}`;
    const firstSearch = async (data: string) => {
      const t0 = now();
      const r = await member('big', data, '--cluster-reader');
      await timeUntil(() => ready(r), 'reader ready');
      await post(`${r.url}/search`, query);
      const seconds = (now() - t0) / 1000;
      r.proc.kill('SIGKILL');
      return seconds;
    };
    const readerDir = tempDir('cold');
    log('cold reader');
    const coldS = await firstSearch(readerDir);
    log('warm reader');
    const warmS = await firstSearch(readerDir);

    log(`bounded reader (--cache-bytes ${LAZY_CACHE_BYTES >> 20} MiB): a small collection beside the 1M one, then the 1M one`);
    const small = randomUnitVectors(new Rng(11), SMALL_RECORDS, BIG_DIM);
    const smallRecords = Array.from(
      { length: SMALL_RECORDS },
      (_, i) => `{"id":"${i}","vector":[${Array.from(small.subarray(i * BIG_DIM, (i + 1) * BIG_DIM)).join(',')}]}`,
    );
    await post(`${big.url}/collections/small/upsert`, `{"records":[${smallRecords.join(',')}]}`);
    await post(`${big.url}/flush`, '');
    const t0 = now();
    const lazy = await member('big', tempDir('lazy'), '--cluster-reader', '--cache-bytes', String(LAZY_CACHE_BYTES));
    await timeUntil(() => ready(lazy), 'bounded reader ready');
    await post(`${lazy.url}/search`, `{"query":${axis},"top_k":10,"scope":["small"]}`);
    const lazySmallS = (now() - t0) / 1000;
    const smallBytes = (await (await fetch(`${lazy.url}/metrics`)).text()).match(/svc_cache_bytes (\d+)/)?.[1];
    const t1 = now();
    await post(`${lazy.url}/search`, `{"query":${axis},"top_k":10,"scope":["c"]}`);
    const lazyBigS = (now() - t1) / 1000;

    log(`bounded standby (--cache-bytes ${LAZY_CACHE_BYTES >> 20} MiB) taking over the 1M store's writer`);
    const boundedWriter = await member('big', tempDir('bounded-writer'), '--standby', '--cache-bytes', String(LAZY_CACHE_BYTES));
    await timeUntil(async () => (await fetch(`${boundedWriter.url}/health`)).status === 200, 'bounded standby listening');
    const killedAt = now();
    big.proc.kill('SIGKILL');
    await timeUntil(() => ready(boundedWriter), 'bounded standby ready');
    const boundedTakeoverS = (now() - killedAt) / 1000;
    const oneRecord = (id: string) => `{"records":[{"id":"${id}","vector":${axis}}]}`;
    const t2 = now();
    await post(`${boundedWriter.url}/collections/small/upsert`, oneRecord('bounded-small'));
    const boundedSmallWriteS = (now() - t2) / 1000;
    const boundedHeld = (await (await fetch(`${boundedWriter.url}/metrics`)).text()).match(/svc_cache_bytes (\d+)/)?.[1];
    const t3 = now();
    await post(`${boundedWriter.url}/collections/c/upsert`, oneRecord('bounded-big'));
    const boundedBigWriteS = (now() - t3) / 1000;
    const failoverTrials = await failoverTrialsOn(gw);
    return {
      dimension_acks: FASHION_DIM,
      batch_records: BATCH_RECORDS,
      ack_ms: summarize(clusterMs),
      local_ack_ms: summarize(localMs),
      records_per_s: Math.round((BATCHES * BATCH_RECORDS) / (total(clusterMs) / 1000)),
      local_records_per_s: Math.round((BATCHES * BATCH_RECORDS) / (total(localMs) / 1000)),
      ack_p50_over_local: Number((summarize(clusterMs).p50_ms / summarize(localMs).p50_ms).toFixed(2)),
      reader_lag_after_refresh_ms: summarize(lag),
      lease_ttl_s: 2,
      failover_s: Number((failoverMs / 1000).toFixed(2)),
      failover_docs: docs.footprint.doc_count,
      acknowledged_docs: (BATCHES + 2 + LAG_SAMPLES) * BATCH_RECORDS,
      big: {
        records: BIG_RECORDS,
        dimension: BIG_DIM,
        synthetic: true,
        fill_s: Number(fillS.toFixed(1)),
        cold_first_search_s: Number(coldS.toFixed(2)),
        warm_first_search_s: Number(warmS.toFixed(2)),
      },
      bounded_reader: {
        cache_bytes: LAZY_CACHE_BYTES,
        small_records: SMALL_RECORDS,
        start_to_first_small_search_s: Number(lazySmallS.toFixed(2)),
        held_bytes_after_small: Number(smallBytes),
        then_first_big_search_s: Number(lazyBigS.toFixed(2)),
      },
      bounded_writer: {
        cache_bytes: LAZY_CACHE_BYTES,
        takeover_s: Number(boundedTakeoverS.toFixed(2)),
        first_small_write_s: Number(boundedSmallWriteS.toFixed(2)),
        held_bytes_after_small_write: Number(boundedHeld),
        then_first_big_write_s: Number(boundedBigWriteS.toFixed(2)),
      },
      failover_trials: failoverTrials,
      radosgw_boot_ms: gw.bootMs,
    };
  } finally {
    for (const server of servers) server.proc.kill('SIGKILL');
    await gw.stop();
  }
}

/** Failover trials, each member a `tessera serve` forked here, on a prefix of their own. */
async function failoverTrialsOn(gw: Radosgw): Promise<Record<string, unknown>> {
  log(`failover trials: ${FAILOVER_TRIALS}, writer stopped after a publish, after a lease renewal, at random, or killed, in turn`);
  // --log-level error: under load a standby and a fenced writer log a warning per refused write.
  const spawn: Spawn = async (args, env) => {
    const server = await start(CLI, ['serve', '--port', '0', '--log-level', 'error', ...args], env);
    return { ...server, stop: async () => server.proc.kill('SIGKILL') };
  };
  const result = await runFailoverTrials({ gateway: gw, bucket: 'bench', spawn, faults: faultSchedule(FAILOVER_TRIALS), log });
  const failoverS = result.trials.map((trial) => trial.failover_ms / 1000).sort((a, b) => a - b);
  return {
    trials: result.trials.length,
    ttl_s: result.ttl_s,
    failover_s: { max: failoverS[failoverS.length - 1], p50: percentile(failoverS, 0.5) },
    objects_deleted_while_named: result.objects_deleted_while_named,
    lost_acknowledged_writes: result.lost_acknowledged_writes,
  };
}

/** BENCH_PART=failover: the trials alone, on a radosgw of their own (no Fashion-MNIST needed). */
async function failoverPart(): Promise<Record<string, unknown>> {
  log('booting radosgw');
  const gw = await startRadosgw();
  try {
    return { failover_trials: await failoverTrialsOn(gw), radosgw_boot_ms: gw.bootMs };
  } finally {
    await gw.stop();
  }
}

async function main(): Promise<void> {
  if (PART === 'failover') {
    emit({ bench: 'cluster', namespaced: null, cluster: await failoverPart() });
    return;
  }
  requireFashion();
  const images = readImages('train');
  const namespaced = PART === 'cluster' ? null : await namespacedPart(images);
  const cluster = PART === 'namespaced' ? null : await clusterPart(images);
  emit({ bench: 'cluster', namespaced, cluster });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
