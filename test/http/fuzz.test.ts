import * as net from 'node:net';
import test from 'ava';
import { call, prng, startServer, unitRecords } from './helpers';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const PARALLEL = 8;

const ROUTES: [string, string][] = [
  ['GET', '/collections'],
  ['POST', '/collections/{name}'],
  ['DELETE', '/collections/{name}'],
  ['GET', '/collections/{name}/meta'],
  ['PUT', '/collections/{name}/meta'],
  ['POST', '/collections/{name}/vector-names'],
  ['GET', '/aliases'],
  ['PUT', '/aliases/{name}'],
  ['DELETE', '/aliases/{name}'],
  ['POST', '/collections/{name}/upsert'],
  ['POST', '/collections/{name}/delete'],
  ['GET', '/collections/{name}/records'],
  ['POST', '/search'],
  ['POST', '/flush'],
  ['GET', '/stats'],
  ['GET', '/cluster'],
  ['GET', '/versions'],
  ['GET', '/metrics'],
  ['POST', '/list'],
  ['POST', '/aggregate'],
  ['POST', '/search/similar'],
  ['POST', '/search/batch'],
  ['POST', '/collections/{name}/filter-index'],
  ['POST', '/collections/{name}/fts-schema'],
  ['POST', '/text-search'],
  ['POST', '/hybrid-search'],
  ['POST', '/suggest'],
];

const NAMES = ['fz', 'fz2', 'cur', '%20', 'a%2Fb', 'x'.repeat(300), '..', '%ff', '%E2%82', 'ünï', '%00', '-', 'Null'];

const SEEDS = [
  JSON.stringify({
    records: [
      ...unitRecords(3, 4),
      {
        id: 'a',
        vector: [1, 0, 0, 0],
        attrs: { n: { Int: 7 }, s: { Str: 'x' }, f: { Float: 1.5 }, b: { Bool: true }, l: { List: ['p'] }, d: { DateTime: 1 }, z: 'Null' },
      },
    ],
  }),
  JSON.stringify({ query: [1, 0, 0, 0], top_k: 5, offset: 1, scope: ['fz'], min_score: -1, exact: true, include_attributes: ['n'] }),
  JSON.stringify({ ids: ['r0', 'r1', 'nope'] }),
  JSON.stringify({ target: 'fz' }),
  JSON.stringify({ names: ['title', 'body'] }),
  JSON.stringify({ owner: 'ops', tier: '1' }),
  JSON.stringify({ fields: ['s', { field: 'l', k1: 1.2, b: 0.75, ascii_folding: true, max_token_len: 20 }] }),
  JSON.stringify({
    clauses: [{ field: 's', query: 'x y', prefix: true }],
    combine: 'Max',
    explain: true,
    highlight: { max_fragments: 2, fragment_chars: 40 },
    top_k: 3,
  }),
  JSON.stringify({ vector: [1, 0, 0, 0], field: 's', text: 'x', candidates: 5, rrf_k: 10, vector_weight: 2, explain: true }),
  JSON.stringify({ field: 's', prefix: 'x yz', limit: 3, fuzzy: true, scope: ['fz'] }),
];

const TOKENS = [
  'null',
  '1e999',
  '-0',
  '"\\ud800"',
  '99999999999999999999999',
  '{',
  ']',
  '"',
  '\\',
  'NaN',
  '[[[[[[[[',
  '{"Int":1.5}',
  '"Null"',
  '{"Int":"1"}',
  '-1',
  '1.0',
  '""',
  'true',
  '{"List":[1]}',
  '{"DateTime":-9223372036854775809}',
];

function randomJson(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * (depth > 3 ? 5 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return [0, -1, 2 ** 53 + 1, 1e308, -0, 0.5, 4294967296][Math.floor(rand() * 7)];
    case 3:
      return ['', 'fz', 'query', 'records', 'Int', '\u0000', '\ud83d\ude00', 'x'.repeat(1000)][Math.floor(rand() * 8)];
    case 4:
      return Array.from({ length: Math.floor(rand() * 5) }, () => rand() * 2 - 1);
    case 5:
      return Array.from({ length: Math.floor(rand() * 4) }, () => randomJson(rand, depth + 1));
    default: {
      const keys = [
        'records',
        'query',
        'ids',
        'target',
        'names',
        'id',
        'vector',
        'attrs',
        'top_k',
        'scope',
        'Int',
        'Str',
        'filter',
        'offset',
        'fields',
        'field',
        'clauses',
        'prefix',
        'text',
        'highlight',
      ];
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [keys[Math.floor(rand() * keys.length)], randomJson(rand, depth + 1)]));
    }
  }
}

function mutate(rand: () => number, seed: string): Buffer {
  let b = Buffer.from(seed);
  for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) {
    const at = Math.floor(rand() * (b.length + 1));
    switch (Math.floor(rand() * 5)) {
      case 0:
        if (b.length) b[Math.min(at, b.length - 1)] = Math.floor(rand() * 256);
        break;
      case 1:
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + Math.floor(rand() * 20))]);
        break;
      case 2:
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.max(0, at - 30), at), b.subarray(at)]);
        break;
      case 3:
        b = Buffer.concat([b.subarray(0, at), Buffer.from(TOKENS[Math.floor(rand() * TOKENS.length)]), b.subarray(at)]);
        break;
      default:
        b = b.subarray(0, at);
    }
  }
  return b;
}

function randomBody(rand: () => number): Buffer {
  const kind = rand();
  if (kind < 0.15) return Buffer.from(Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 256)));
  if (kind < 0.4) return Buffer.from(JSON.stringify(randomJson(rand)) ?? '');
  const seed = SEEDS[Math.floor(rand() * SEEDS.length)];
  return kind < 0.5 ? Buffer.from(seed) : mutate(rand, seed);
}

test(`fuzz: ${REQUESTS} random and mutated requests to every route (seed ${SEED}) never answer 500 or crash`, async (t) => {
  t.timeout(120_000);
  const server = await startServer();
  t.teardown(() => server.stop());
  await call(server, 'POST', '/collections/fz/upsert', SEEDS[0]);
  await call(server, 'PUT', '/aliases/cur', { target: 'fz' });
  await call(server, 'POST', '/collections/fz/fts-schema', { fields: ['s', 'l'] });

  const rand = prng(SEED);
  const cases = Array.from({ length: REQUESTS }, (_, i) => {
    const [method, template] = ROUTES[i % ROUTES.length];
    const path = template.replace('{name}', NAMES[Math.floor(rand() * NAMES.length)]);
    return { i, method, path, body: method === 'GET' ? undefined : randomBody(rand) };
  });
  const failures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < cases.length) {
        const c = cases[next++];
        const r = await call(server, c.method, c.path, c.body);
        const errorBody = r.status < 400 || typeof r.json?.error === 'string';
        if (r.status >= 500 || !errorBody)
          failures.push(`#${c.i} ${c.method} ${c.path} ${JSON.stringify(c.body?.toString('latin1').slice(0, 200))} -> ${r.status} ${r.text.slice(0, 200)}`);
      }
    }),
  );
  t.deepEqual(failures.slice(0, 20), []);
  t.is(server.proc.exitCode, null);
  t.is((await call(server, 'GET', '/health')).status, 200);
  t.is((await call(server, 'GET', '/ready')).status, 200);
});

test('fuzz: malformed HTTP framing on raw sockets never crashes the server', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const rand = prng(SEED + 1);
  const frames = [
    'GET / HTTP/1.1\r\n\r\n',
    'POST /search HTTP/1.1\r\nContent-Length: -5\r\n\r\n{}',
    'POST /search HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n{}',
    'POST /search HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 4\r\n\r\n{}',
    'POST /search HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    'POST /search HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    `GET /${'a'.repeat(100_000)} HTTP/1.1\r\n\r\n`,
    `GET /health HTTP/1.1\r\nX-Request-Id: ${'r'.repeat(20_000)}\r\n\r\n`,
    'GET /health HTTP/1.1\r\nBad Header Without Colon\r\n\r\n',
    'GET /health HTTP/9.9\r\n\r\n',
  ];
  for (let i = 0; i < 100; i++)
    frames.push(Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 300) }, () => Math.floor(rand() * 256))).toString('latin1'));
  await Promise.all(
    frames.map(
      (frame) =>
        new Promise<void>((resolve) => {
          const socket = net.connect(server.port, '127.0.0.1', () => socket.end(Buffer.from(frame, 'latin1')));
          socket.on('data', () => {});
          socket.setTimeout(2_000, () => socket.destroy());
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        }),
    ),
  );
  t.is(server.proc.exitCode, null);
  t.is((await call(server, 'GET', '/health')).status, 200);
});
