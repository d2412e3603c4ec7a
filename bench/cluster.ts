// bench:cluster, namespaced part: 1,000 tenant stores of real vectors (Fashion-MNIST, 784 dims)
// behind one --namespaced server whose warm set holds only some of them. Measures the first search
// of a cold (evicted) tenant, which opens its store, against a search of a warm one in the same run,
// and what the process holds with the warm set full (threads, RSS).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { emit, log, now } from './common';
import { FASHION_DIM, readImages, requireFashion } from './fashion_mnist';
import { CLI, post, start } from './http_rig';

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

async function main(): Promise<void> {
  requireFashion();
  const images = readImages('train');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-ns-'));
  const server = await start(CLI, ['serve', '--namespaced', '--data', root, '--dimension', String(FASHION_DIM), '--distance', 'Euclidean', '--port', '0', '--warm-bytes', String(WARM_BYTES), '--log-level', 'warn']);
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
    emit({
      bench: 'cluster',
      part: 'namespaced',
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
    });
  } finally {
    server.proc.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
