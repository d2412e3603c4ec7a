// How every HTTP provider kind talks to its server (shown on OpenAI-style embeddings): batching, the
// bound on requests in flight, the time budget, cancellation, retries, and the errors a failure gives.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmbedder, ProviderError } from '../../lib/features/memory/providers';
import { type Call, closed, fakeProvider, numbered, openaiEmbeddings, rejection, reply } from './providers_server';

const spec = (url: string) => `openai:m@${url}`;

/** A provider answering each request with the embeddings of its inputs. */
const embeddings = (call: Call, res: Parameters<typeof reply>[0]) => reply(res, 200, openaiEmbeddings(call.body.input));

test('embeddings go in batches of batchSize and come back in input order', async (t) => {
  const p = await fakeProvider(t, embeddings);
  const vectors = await createEmbedder(spec(p.url), { batchSize: 64 }).embed(numbered(150));
  t.deepEqual(
    p.calls.map((c) => c.body.input.length).sort((a, b) => b - a),
    [64, 64, 22],
  );
  t.deepEqual(
    vectors.map((v) => v[0]),
    numbered(150).map((_, i) => i),
  );
  t.true(vectors.every((v) => v instanceof Float32Array && v.length === 3));
});

test('no texts make no request', async (t) => {
  const p = await fakeProvider(t, embeddings);
  t.deepEqual(await createEmbedder(spec(p.url)).embed([]), []);
  t.is(p.calls.length, 0);
});

test('a client keeps at most concurrency requests in flight, across its callers', async (t) => {
  // Requests are held until `concurrency` of them wait (or the last one arrives), then all answered:
  // a client sending more at once would be seen holding more.
  const total = 9;
  const held: (() => void)[] = [];
  let most = 0;
  const p = await fakeProvider(t, (call, res) => {
    held.push(() => embeddings(call, res));
    most = Math.max(most, held.length);
    if (held.length === 3 || p.calls.length === total) for (const answer of held.splice(0)) answer();
  });
  const embedder = createEmbedder(spec(p.url), { batchSize: 1, concurrency: 3 });
  const [a, b] = await Promise.all([embedder.embed(numbered(5)), embedder.embed(numbered(4, 5))]);
  t.is(p.calls.length, total);
  t.is(most, 3);
  t.deepEqual(
    [...a, ...b].map((v) => v[0]),
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
  );
});

test('a provider that does not answer within timeoutMs fails the call with a ProviderError', async (t) => {
  const p = await fakeProvider(t, () => {});
  const embedder = createEmbedder(spec(p.url), { timeoutMs: 300 });
  const start = performance.now();
  const err = await t.throwsAsync(embedder.embed(['a']), { instanceOf: ProviderError });
  t.is(err?.message, `embed provider openai:m@${p.url} did not answer within 300ms`);
  t.is(err?.provider, `openai:m@${p.url}`);
  // Under load the budget may run out before the request even reaches the server: only the client side is asserted.
  t.true(performance.now() - start >= 290);
});

test("the caller's AbortSignal aborts an in-flight request at once, with the signal's reason", async (t) => {
  const controller = new AbortController();
  const reason = new Error('caller gave up');
  const p = await fakeProvider(t, () => controller.abort(reason));
  const start = performance.now();
  t.is(await rejection(createEmbedder(spec(p.url)).embed(['a'], controller.signal)), reason);
  await closed(p.calls[0]);
  t.true(performance.now() - start < 2000, 'far within the 30s budget');
});

test("the caller's AbortSignal also stops a wait before a retry", async (t) => {
  const controller = new AbortController();
  const p = await fakeProvider(t, (_call, res) => {
    res.on('finish', () => controller.abort());
    reply(res, 429, { error: 'slow down' }, { 'retry-after': '20' });
  });
  const start = performance.now();
  const err = await rejection(createEmbedder(spec(p.url)).embed(['a'], controller.signal));
  t.is((err as DOMException).name, 'AbortError');
  t.is(p.calls.length, 1);
  t.true(performance.now() - start < 2000, 'not after the 20s Retry-After');
});

test("a caller waiting for one of the client's request slots leaves when its signal aborts", async (t) => {
  const p = await fakeProvider(t, () => {});
  const embedder = createEmbedder(spec(p.url), { concurrency: 1 });
  const held = embedder.embed(['a']);
  held.catch(() => {});
  const controller = new AbortController();
  const queued = embedder.embed(['b'], controller.signal);
  controller.abort(new Error('gave up'));
  t.is(((await rejection(queued)) as Error).message, 'gave up');
  t.is(p.calls.filter((c) => c.body.input[0] === 'b').length, 0);
});

test('an aborted signal rejects before any request', async (t) => {
  const p = await fakeProvider(t, embeddings);
  const err = await rejection(createEmbedder(spec(p.url)).embed(['a'], AbortSignal.abort()));
  t.is((err as DOMException).name, 'AbortError');
  t.is(p.calls.length, 0);
});

test('a 5xx answer is retried', async (t) => {
  const p = await fakeProvider(t, (call, res) => (p.calls.length === 1 ? reply(res, 503, 'busy') : embeddings(call, res)));
  const vectors = await createEmbedder(spec(p.url)).embed(['text 7']);
  t.is(vectors[0][0], 7);
  t.is(p.calls.length, 2);
});

test('a dropped connection is retried', async (t) => {
  const p = await fakeProvider(t, (call, res) => (p.calls.length === 1 ? call.req.socket.destroy() : embeddings(call, res)));
  t.is((await createEmbedder(spec(p.url)).embed(['text 3']))[0][0], 3);
  t.is(p.calls.length, 2);
});

test('a 429 with Retry-After: 0 is retried', async (t) => {
  const p = await fakeProvider(t, (call, res) => (p.calls.length === 1 ? reply(res, 429, '', { 'retry-after': '0' }) : embeddings(call, res)));
  t.is((await createEmbedder(spec(p.url)).embed(['text 1']))[0][0], 1);
  t.is(p.calls.length, 2);
});

test('a 429 with Retry-After: 1 is retried after a second', async (t) => {
  const p = await fakeProvider(t, (call, res) => (p.calls.length === 1 ? reply(res, 429, '', { 'retry-after': '1' }) : embeddings(call, res)));
  await createEmbedder(spec(p.url)).embed(['text 1']);
  t.is(p.calls.length, 2);
  t.true(p.calls[1].at - p.calls[0].at >= 950, `${p.calls[1].at - p.calls[0].at} ms`);
});

test('a Retry-After given as an HTTP date is waited until', async (t) => {
  const p = await fakeProvider(t, (call, res) =>
    // HTTP dates have whole seconds: this one is between 1 and 2 seconds ahead.
    p.calls.length === 1 ? reply(res, 503, '', { 'retry-after': new Date(Date.now() + 2000).toUTCString() }) : embeddings(call, res),
  );
  await createEmbedder(spec(p.url)).embed(['text 1']);
  t.true(p.calls[1].at - p.calls[0].at >= 950, `${p.calls[1].at - p.calls[0].at} ms`);
});

test('a Retry-After beyond the time budget fails at once with the 429', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 429, { error: 'rate limited' }, { 'retry-after': '10' }));
  const err = await t.throwsAsync(createEmbedder(spec(p.url), { timeoutMs: 2000 }).embed(['a']), { instanceOf: ProviderError });
  t.is(err?.status, 429);
  t.is(err?.message, `embed provider openai:m@${p.url} answered 429 Too Many Requests to POST /v1/embeddings: {"error":"rate limited"}`);
  t.is(p.calls.length, 1);
});

test('a persistent 5xx fails after maxRetries retries, naming the provider, the status and the start of the body', async (t) => {
  const body = `boom ${'x'.repeat(1000)}`;
  const p = await fakeProvider(t, (_call, res) => reply(res, 500, body));
  const err = await t.throwsAsync(createEmbedder(spec(p.url), { maxRetries: 2 }).embed(['a']), { instanceOf: ProviderError });
  t.is(p.calls.length, 3);
  t.is(err?.status, 500);
  t.is(err?.message, `embed provider openai:m@${p.url} answered 500 Internal Server Error to POST /v1/embeddings: ${body.slice(0, 200)}… (after 3 attempts)`);
});

test('a 4xx other than 429 is not retried', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 400, { error: { message: "'input' is too long" } }));
  const err = await t.throwsAsync(createEmbedder(spec(p.url)).embed(['a']), { instanceOf: ProviderError });
  t.is(err?.status, 400);
  t.regex(err?.message ?? '', /answered 400 Bad Request to POST \/v1\/embeddings: .*'input' is too long/);
  t.is(p.calls.length, 1);
});

test('a port nothing listens on is reported unreachable, without retries', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const err = await t.throwsAsync(createEmbedder(`openai:m@http://127.0.0.1:${port}`).embed(['a']), { instanceOf: ProviderError });
  t.is(err?.message, `embed provider openai:m@http://127.0.0.1:${port} is unreachable (ECONNREFUSED)`);
  t.is(err?.status, undefined);
});

test('one failed batch fails the whole call and aborts the batches still in flight', async (t) => {
  const p = await fakeProvider(t, (call, res) => {
    // The other batches are held until the client gives up on them.
    if (call.body.input[0] === 'bad') reply(res, 400, 'no');
  });
  const calls = createEmbedder(spec(p.url), { batchSize: 1 }).embed(['a', 'bad', 'c']);
  const err = await t.throwsAsync(calls, { instanceOf: ProviderError });
  t.is(err?.status, 400);
  t.is(p.calls.length, 3);
  await Promise.all(p.calls.filter((c) => c.body.input[0] !== 'bad').map(closed));
});

test('vectors of another length than the store dimension are refused, naming both', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 200, { data: [{ index: 0, embedding: new Array(768).fill(0.5) }] }));
  const err = await t.throwsAsync(createEmbedder(spec(p.url), { dimension: 384 }).embed(['a']), { instanceOf: ProviderError });
  t.is(err?.message, `embed provider openai:m@${p.url} returns 768-dimensional vectors but the store's dimension is 384`);
});

const MALFORMED: [string, unknown, RegExp][] = [
  ['not JSON', 'oops <html>', /answered something that is not JSON: oops <html>$/],
  ['no data', { object: 'list' }, /answered something that is not \{data: \[\{index, embedding\}\]\} with 2 vectors: \{"object":"list"\}$/],
  ['one vector short', { data: [{ index: 0, embedding: [1] }] }, /not \{data: \[\{index, embedding\}\]\} with 2 vectors/],
  [
    'an index twice',
    {
      data: [
        { index: 0, embedding: [1] },
        { index: 0, embedding: [1] },
      ],
    },
    /not \{data: \[\{index, embedding\}\]\} with 2 vectors/,
  ],
  [
    'an index out of range',
    {
      data: [
        { index: 0, embedding: [1] },
        { index: 2, embedding: [1] },
      ],
    },
    /with 2 vectors/,
  ],
  [
    'a null component',
    {
      data: [
        { index: 0, embedding: [1, null] },
        { index: 1, embedding: [1, 2] },
      ],
    },
    /of non-empty number arrays/,
  ],
  [
    'a string component',
    {
      data: [
        { index: 0, embedding: ['1'] },
        { index: 1, embedding: [1] },
      ],
    },
    /of non-empty number arrays/,
  ],
  [
    'an empty vector',
    {
      data: [
        { index: 0, embedding: [] },
        { index: 1, embedding: [] },
      ],
    },
    /of non-empty number arrays/,
  ],
  [
    'a number beyond f32',
    {
      data: [
        { index: 0, embedding: [1e39] },
        { index: 1, embedding: [1] },
      ],
    },
    /answered a vector holding a number that is not finite/,
  ],
  [
    'vectors of two lengths',
    {
      data: [
        { index: 0, embedding: [1, 2] },
        { index: 1, embedding: [1] },
      ],
    },
    /answered vectors of different lengths \(2 and 1\)/,
  ],
];

for (const [what, answer, message] of MALFORMED) {
  test(`a malformed answer is a ProviderError: ${what}`, async (t) => {
    const p = await fakeProvider(t, (_call, res) => reply(res, 200, answer));
    const err = await t.throwsAsync(createEmbedder(spec(p.url)).embed(['a', 'b']), { instanceOf: ProviderError });
    t.regex(err?.message ?? '', message);
    t.true(err?.message.startsWith(`embed provider openai:m@${p.url} `));
    t.is(p.calls.length, 1, 'not retried');
  });
}

test('the API key is sent but never appears in a message, even when the provider echoes it', async (t) => {
  const key = 'sk-test-secret-123';
  const p = await fakeProvider(t, (call, res) => reply(res, 401, { error: `Incorrect API key provided: ${call.headers.authorization}` }));
  const embedder = createEmbedder(spec(p.url), { env: { TESSERA_EMBED_API_KEY: key } });
  const err = await t.throwsAsync(embedder.embed(['a']), { instanceOf: ProviderError });
  t.is(p.calls[0].headers.authorization, `Bearer ${key}`);
  t.false(err?.message.includes(key));
  t.regex(err?.message ?? '', /Incorrect API key provided: Bearer \*\*\*/);
  t.false(embedder.identity.includes(key));
});
