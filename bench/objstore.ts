// `npm run bench:objstore`: the object store cluster mode will stand on, measured on a real
// single-node radosgw (memstore OSD, this machine): boot time, then conditional puts of a small
// lease-sized object and of 1 MiB (If-None-Match: * on fresh keys, as a WAL object would be
// written), and an If-Match renewal. Last stdout line: one JSON object.
import { randomBytes } from 'node:crypto';
import { startRadosgw } from '../test/harness/radosgw_boot';
import { emit, log, machine, now, runBench, summarize } from './common';

async function timed(n: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = now();
    await op(i);
    ms.push(now() - start);
  }
  return ms;
}

runBench(async () => {
  const n = Number(process.env.BENCH_N ?? 100);
  log('booting radosgw');
  const gw = await startRadosgw();
  log(`radosgw up in ${gw.bootMs} ms at ${gw.endpoint}`);
  const store = gw.store('bench');
  try {
    await store.createBucket();
    const small = Buffer.from(JSON.stringify({ owner: 'bench', epoch: 1, ttl_ms: 10_000, released: false, nonce: '0123456789abcdef' }));
    const big = randomBytes(1 << 20);
    await timed(5, (i) => store.put(`warm/${i}`, big)); // connections and pools warm
    const smallPut = summarize(await timed(n, (i) => store.put(`small/${i}`, small)));
    const smallCreate = summarize(await timed(n, (i) => store.put(`create/${i}`, small, { ifNoneMatch: '*' })));
    let { etag } = await store.put('lease', small);
    const renew = summarize(await timed(n, async () => ({ etag } = await store.put('lease', small, { ifMatch: etag }))));
    const bigCreate = summarize(await timed(n, (i) => store.put(`wal/${i}`, big, { ifNoneMatch: '*' })));
    const bigPut = summarize(await timed(n, (i) => store.put(`seg/${i}`, big)));
    emit({
      bench: 'objstore',
      radosgw_boot_ms: gw.bootMs,
      small_bytes: small.length,
      small_put: smallPut,
      small_conditional_create: smallCreate,
      small_if_match_renewal: renew,
      mib_conditional_create: bigCreate,
      mib_put: bigPut,
      machine: machine(),
    });
  } finally {
    store.close();
    await gw.stop();
  }
});
