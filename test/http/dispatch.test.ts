// The request path under abuse: pipelined requests on many connections cut at random points leave
// no concurrency slot behind, idle keep-alive connections cost nothing on the hot path, a client
// that never reads its answers does not make the server buffer without bound, and a slow reader
// still gets its whole answer. Pipelined
// requests are answered in order when each answer is ready before the next request is parsed (an
// inline search, a probe); uWebSockets.js closes a connection whose next pipelined request arrives
// while an answer is still being computed (README, "Keep-alive and pipelining"), and those
// requests must free their slots like any client that went away.
import test from 'ava';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { type Server, call, prng, startServer, unitRecords, until } from './helpers';

const DIM = 16;
const LIMIT = 64;

let server: Server;

test.before(async () => {
  server = await startServer(['--in-memory', '--dimension', String(DIM), '--max-concurrent-requests', String(LIMIT)]);
  const records = unitRecords(2000, DIM, prng(3)).map((r, i) => ({ ...r, attrs: { body: { Str: `record ${i} `.repeat(40) } } }));
  for (let i = 0; i < records.length; i += 500) {
    const r = await call(server, 'POST', '/collections/c/upsert', { records: records.slice(i, i + 500) });
    if (r.status !== 200) throw new Error(`upsert: ${r.status} ${r.text}`);
  }
});
test.after.always(() => server?.stop());

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

function searchRequest(body: string): string {
  return `POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Opens a connection and resolves once it is connected. */
function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Answers `n` concurrent searches, each on its own connection; their statuses. */
async function concurrentStatuses(n: number): Promise<number[]> {
  const body = JSON.stringify({ query: unitRecords(1, DIM, prng(9))[0].vector, top_k: 5 });
  return Promise.all(Array.from({ length: n }, async () => (await call(server, 'POST', '/search', body)).status));
}

test.serial('10,000 pipelined requests with random aborts leave no slot leaked: the limit still admits a full load afterwards', async (t) => {
  t.timeout(120_000);
  const rand = prng(11);
  const connections = 100;
  const perConnection = 100;
  const queries = Array.from({ length: 16 }, () => searchRequest(JSON.stringify({ query: unitRecords(1, DIM, rand)[0].vector, top_k: 10 })));
  await Promise.all(
    // Beside the pipelined connections, as many with a single request each: those are cut while
    // their search is queued or running in the core.
    Array.from({ length: 2 * connections }, async (_, c) => {
      const socket = await connect();
      socket.on('error', () => {});
      const requests = c < connections ? perConnection : 1;
      socket.write(Array.from({ length: requests }, (_, i) => queries[(c + i) % queries.length]).join(''));
      // Each connection is cut by the client at a random moment (before, during or after its
      // answers), unless the server closed it first.
      const cut = setTimeout(() => socket.destroy(), rand() * 50);
      await new Promise<void>((resolve) => socket.on('close', () => resolve()));
      clearTimeout(cut);
    }),
  );
  // Every request of a cut connection was either answered or released when the client went away.
  await until(async () => (await concurrentStatuses(LIMIT)).every((s) => s === 200), 'a full load of concurrent requests admitted');
  t.deepEqual(await concurrentStatuses(LIMIT), Array(LIMIT).fill(200));
});

test.serial('pipelined searches answered inline come back in order, one answer each', async (t) => {
  const small = await startServer(['--in-memory', '--dimension', String(DIM)]);
  t.teardown(() => small.stop());
  const vectors = unitRecords(100, DIM, prng(13));
  t.is((await call(small, 'POST', '/collections/c/upsert', { records: vectors })).status, 200);
  const socket = net.connect(small.port, '127.0.0.1');
  socket.on('error', () => {});
  // Each query is a stored vector: its own record comes back first.
  socket.write(vectors.map((v) => searchRequest(JSON.stringify({ query: v.vector, top_k: 1 }))).join(''));
  let text = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if ((text.match(/HTTP\/1\.1 /g) ?? []).length === vectors.length && text.endsWith(']')) resolve();
    });
    socket.on('close', () => reject(new Error(`closed after ${text.length} bytes`)));
  });
  socket.destroy();
  const ids = [...text.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]);
  t.deepEqual(
    ids,
    vectors.map((v) => v.id),
  );
  t.is((text.match(/HTTP\/1\.1 200 OK/g) ?? []).length, vectors.length);
});

test.serial('1,000 idle keep-alive connections neither grow memory nor block the hot path', async (t) => {
  t.timeout(60_000);
  const before = rssBytes(server.proc.pid!);
  const idle = await Promise.all(Array.from({ length: 1000 }, () => connect()));
  for (const s of idle) s.on('error', () => {});
  t.deepEqual(await concurrentStatuses(32), Array(32).fill(200));
  const growth = rssBytes(server.proc.pid!) - before;
  t.true(growth < 64 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MiB with 1,000 idle connections`);
  for (const s of idle) s.destroy();
});

test.serial('a client that pipelines requests and never reads its answers does not make the server buffer them without bound', async (t) => {
  t.timeout(120_000);
  // A store small enough for every search to be answered inline, so pipelined requests are answered
  // one after another, and records large enough for each answer to be about 700 KB: 2,000 of them
  // buffered would be 1.4 GB.
  const small = await startServer(['--in-memory', '--dimension', String(DIM)]);
  t.teardown(() => small.stop());
  const records = unitRecords(100, DIM, prng(12)).map((r) => ({ ...r, attrs: { body: { Str: 'x'.repeat(7000) } } }));
  t.is((await call(small, 'POST', '/collections/c/upsert', { records })).status, 200);
  const answered = async () => Number(/^svc_reads_inline_total (\d+)/m.exec((await call(small, 'GET', '/metrics')).text)?.[1] ?? 0);
  const before = rssBytes(small.proc.pid!);
  const socket = net.connect(small.port, '127.0.0.1');
  socket.on('error', () => {});
  socket.pause();
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const big = searchRequest(JSON.stringify({ query: records[0].vector, top_k: 100 }));
  for (let i = 0; i < 2000; i++) socket.write(big);
  // Until the server has done all it will with them: it closed the connection, or it answers no
  // more of them across three round trips of /metrics (it stopped reading the socket).
  const settled = async () => {
    for (let last = -1, same = 0; same < 3; ) {
      const now = await answered();
      same = now === last ? same + 1 : 0;
      last = now;
    }
  };
  await Promise.race([closed, settled()]);
  const growth = rssBytes(small.proc.pid!) - before;
  t.true(growth < 128 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MiB with ${await answered()} answers unread`);
  socket.destroy();
  t.is((await call(small, 'GET', '/health')).status, 200);
});

test.serial('a large answer to a client reading slowly arrives whole as the socket drains', async (t) => {
  const records = unitRecords(300, DIM, prng(14), 'big').map((r) => ({ ...r, attrs: { body: { Str: 'y'.repeat(7000) } } }));
  t.is((await call(server, 'POST', '/collections/large/upsert', { records })).status, 200);
  const body = JSON.stringify({ scope: ['large'], limit: 300 });
  const socket = await connect();
  socket.write(`POST /list HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  // Reads one chunk per turn of the event loop, so the server meets a full socket and must resume
  // the answer as it drains.
  socket.pause();
  let text = '';
  await new Promise<void>((resolve) => {
    const pull = () => {
      const chunk = socket.read(16 * 1024) ?? socket.read();
      if (chunk) text += chunk.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = head < 0 ? -1 : Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1]);
      if (head >= 0 && text.length - head - 4 >= length) return resolve();
      setImmediate(pull);
    };
    pull();
  });
  socket.destroy();
  const hits = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
  t.is(hits.length, 300);
  t.true(text.length > 2_000_000);
});

test.serial('probes and /metrics answer while the query threads are busy with a backlog of searches', async (t) => {
  t.timeout(120_000);
  // One query thread and deep rankings: the backlog takes a while to drain, and the probes must not
  // wait for it (they never touch the store's threads).
  const busy = await startServer(['--in-memory', '--dimension', String(DIM), '--query-threads', '1', '--max-concurrent-requests', '1000']);
  t.teardown(() => busy.stop());
  const rand = prng(21);
  for (let i = 0; i < 50_000; i += 10_000) {
    t.is((await call(busy, 'POST', '/collections/c/upsert', { records: unitRecords(10_000, DIM, rand, `b${i}-`) })).status, 200);
  }
  const body = JSON.stringify({ query: unitRecords(1, DIM, rand)[0].vector, top_k: 5000 });
  let finished = 0;
  const backlog = Array.from({ length: 200 }, () =>
    call(busy, 'POST', '/search', body).then((r) => {
      finished++;
      return r.status;
    }),
  );
  const [health, metrics, ready] = await Promise.all([call(busy, 'GET', '/health'), call(busy, 'GET', '/metrics'), call(busy, 'GET', '/ready')]);
  const finishedAtProbes = finished;
  t.deepEqual([health.status, metrics.status, ready.status], [200, 200, 200]);
  t.true(finishedAtProbes < 200, 'the probes answered before the backlog drained');
  t.deepEqual(new Set(await Promise.all(backlog)), new Set([200]));
});
