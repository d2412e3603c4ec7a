// Each provider API kind against a local server speaking that API: the request it sends (path, model,
// body, key header) and how it reads the answer.
import test from 'ava';
import { createEmbedder, createReranker, createSummarizer, ProviderError } from '../../lib/features/memory/providers';
import { fakeProvider, numbered, openaiEmbeddings, reply, vectorOf } from './providers_server';

const KEY = 'sk-test-key';

test('openai embeddings: POST /v1/embeddings {model, input} with the embed key, vectors by data[].index', async (t) => {
  const p = await fakeProvider(t, (call, res) => reply(res, 200, openaiEmbeddings(call.body.input)));
  const embedder = createEmbedder(`openai:text-embedding-3-small@${p.url}`, { env: { TESSERA_EMBED_API_KEY: KEY } });
  const vectors = await embedder.embed(['text 4', 'text 2']);
  t.deepEqual(vectors, [Float32Array.from(vectorOf('text 4')), Float32Array.from(vectorOf('text 2'))]);
  const [call] = p.calls;
  t.is(call.method, 'POST');
  t.is(call.path, '/v1/embeddings');
  t.deepEqual(call.body, { model: 'text-embedding-3-small', input: ['text 4', 'text 2'] });
  t.is(call.headers.authorization, `Bearer ${KEY}`);
  t.is(call.headers['content-type'], 'application/json');
  t.is(embedder.identity, `openai:text-embedding-3-small@${p.url}`);
});

test('without its key variable a provider is called without an Authorization header', async (t) => {
  const p = await fakeProvider(t, (call, res) => reply(res, 200, openaiEmbeddings(call.body.input)));
  // Another role's key is not the embed key.
  await createEmbedder(`openai:m@${p.url}`, { env: { TESSERA_RERANK_API_KEY: KEY } }).embed(['text 1']);
  t.is(p.calls[0].headers.authorization, undefined);
});

test('a path prefix in the URL comes before the API path', async (t) => {
  const p = await fakeProvider(t, (call, res) => reply(res, 200, openaiEmbeddings(call.body.input)));
  const embedder = createEmbedder(`openai:m@${p.url}/proxy/openai/`);
  await embedder.embed(['text 1']);
  t.is(p.calls[0].path, '/proxy/openai/v1/embeddings');
  t.is(embedder.identity, `openai:m@${p.url}/proxy/openai`);
});

test('ollama embeddings: POST /api/embed {model, input} -> {embeddings}', async (t) => {
  const p = await fakeProvider(t, (call, res) => reply(res, 200, { model: 'x', embeddings: call.body.input.map(vectorOf) }));
  const embedder = createEmbedder(`ollama:nomic-embed-text:latest@${p.url}`);
  const vectors = await embedder.embed(['text 1', 'text 2']);
  t.deepEqual(
    vectors.map((v) => v[0]),
    [1, 2],
  );
  t.is(p.calls[0].path, '/api/embed');
  t.deepEqual(p.calls[0].body, { model: 'nomic-embed-text:latest', input: ['text 1', 'text 2'] });
  t.is(embedder.identity, `ollama:nomic-embed-text:latest@${p.url}`);
});

test("tei embeddings: POST /embed {inputs} -> [[...]], in batches of TEI's default limit of 32", async (t) => {
  const p = await fakeProvider(t, (call, res) => reply(res, 200, call.body.inputs.map(vectorOf)));
  const vectors = await createEmbedder(`tei@${p.url}`).embed(numbered(40));
  t.deepEqual(
    vectors.map((v) => v[0]),
    numbered(40).map((_, i) => i),
  );
  t.true(p.calls.every((c) => c.path === '/embed' && Object.keys(c.body).join() === 'inputs'));
  t.deepEqual(
    p.calls.map((c) => c.body.inputs.length).sort((a, b) => b - a),
    [32, 8],
  );
});

test('tei takes an optional model, which only names it in the identity', async (t) => {
  t.is(createEmbedder('tei@http://localhost:8080').identity, 'tei@http://localhost:8080');
  t.is(createEmbedder('tei:BAAI/bge-small-en-v1.5@http://localhost:8080').identity, 'tei:BAAI/bge-small-en-v1.5@http://localhost:8080');
});

test('openai summaries: POST /v1/chat/completions with a system prompt and the text, the reply trimmed', async (t) => {
  const p = await fakeProvider(t, (_call, res) =>
    reply(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: '  A short summary.\n' } }] }),
  );
  const summarizer = createSummarizer(`openai:gpt-4o-mini@${p.url}`, { env: { TESSERA_SUMMARIZE_API_KEY: KEY, TESSERA_EMBED_API_KEY: 'other' } });
  t.is(await summarizer.summarize('A long text.'), 'A short summary.');
  const [call] = p.calls;
  t.is(call.path, '/v1/chat/completions');
  t.is(call.body.model, 'gpt-4o-mini');
  t.deepEqual(
    call.body.messages.map((m: { role: string }) => m.role),
    ['system', 'user'],
  );
  t.regex(call.body.messages[0].content, /summar/i);
  t.is(call.body.messages[1].content, 'A long text.');
  t.is(call.headers.authorization, `Bearer ${KEY}`);
});

test('ollama summaries: POST /api/chat {model, messages, stream: false} -> message.content', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 200, { model: 'llama3.2', message: { role: 'assistant', content: 'Summary.' }, done: true }));
  t.is(await createSummarizer(`ollama:llama3.2@${p.url}`).summarize('Text.'), 'Summary.');
  t.is(p.calls[0].path, '/api/chat');
  t.is(p.calls[0].body.model, 'llama3.2');
  t.is(p.calls[0].body.stream, false);
  t.is(p.calls[0].body.messages[1].content, 'Text.');
});

test('a summary answer without the reply text is a ProviderError', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 200, { choices: [] }));
  const err = await t.throwsAsync(createSummarizer(`openai:m@${p.url}`).summarize('Text.'), { instanceOf: ProviderError });
  t.is(err?.message, `summarize provider openai:m@${p.url} answered something that is not {choices: [{message: {content}}]}: {"choices":[]}`);
});

for (const kind of ['cohere', 'jina']) {
  test(`${kind} rerank: POST /v1/rerank {model, query, documents, top_n} -> scores in the documents' order`, async (t) => {
    const p = await fakeProvider(t, (_call, res) =>
      reply(res, 200, {
        results: [
          { index: 2, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.5 },
          { index: 1, relevance_score: 0.1 },
        ],
      }),
    );
    const reranker = createReranker(`${kind}:rerank-model@${p.url}`, { env: { TESSERA_RERANK_API_KEY: KEY } });
    t.deepEqual(await reranker.rerank('q', ['a', 'b', 'c']), [0.5, 0.1, 0.9]);
    const [call] = p.calls;
    t.is(call.path, '/v1/rerank');
    t.like(call.body, { model: 'rerank-model', query: 'q', documents: ['a', 'b', 'c'], top_n: 3 });
    t.is(call.headers.authorization, `Bearer ${KEY}`);
    t.is(reranker.identity, `${kind}:rerank-model@${p.url}`);
  });
}

test('tei rerank: POST /rerank {query, texts} -> [{index, score}]', async (t) => {
  const p = await fakeProvider(t, (call, res) =>
    reply(
      res,
      200,
      call.body.texts.map((_: string, index: number) => ({ index, score: index / 10 })),
    ),
  );
  t.deepEqual(await createReranker(`tei@${p.url}`).rerank('q', ['a', 'b']), [0, 0.1]);
  t.is(p.calls[0].path, '/rerank');
  t.deepEqual(p.calls[0].body, { query: 'q', texts: ['a', 'b'] });
});

test("tei rerank goes in batches of 32 documents, the scores joined in the documents' order", async (t) => {
  const p = await fakeProvider(t, (call, res) =>
    reply(res, 200, call.body.texts.map((text: string, index: number) => ({ index, score: vectorOf(text)[0] })).reverse()),
  );
  const scores = await createReranker(`tei@${p.url}`).rerank('q', numbered(40));
  t.deepEqual(
    scores,
    numbered(40).map((_, i) => i),
  );
  t.is(p.calls.length, 2);
});

test('summarizers and rerankers share the transport: a failure names their role', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 404, 'not found'));
  const summarize = await t.throwsAsync(createSummarizer(`ollama:m@${p.url}`).summarize('x'), { instanceOf: ProviderError });
  t.is(summarize?.message, `summarize provider ollama:m@${p.url} answered 404 Not Found to POST /api/chat: not found`);
  const rerank = await t.throwsAsync(createReranker(`jina:m@${p.url}`).rerank('q', ['x']), { instanceOf: ProviderError });
  t.is(rerank?.message, `rerank provider jina:m@${p.url} answered 404 Not Found to POST /v1/rerank: not found`);
});

test('no documents make no rerank request', async (t) => {
  const p = await fakeProvider(t, (_call, res) => reply(res, 200, []));
  t.deepEqual(await createReranker(`tei@${p.url}`).rerank('q', []), []);
  t.is(p.calls.length, 0);
});

const PARTIAL_RERANKS: [string, unknown][] = [
  ['a document missing', [{ index: 0, score: 1 }]],
  [
    'a document twice',
    [
      { index: 0, score: 1 },
      { index: 0, score: 2 },
    ],
  ],
  [
    'an index out of range',
    [
      { index: 0, score: 1 },
      { index: 5, score: 2 },
    ],
  ],
  [
    'a score that is not a number',
    [
      { index: 0, score: 1 },
      { index: 1, score: '2' },
    ],
  ],
  ['not a list', { results: [] }],
];

for (const [what, answer] of PARTIAL_RERANKS) {
  test(`a rerank answer must score every document exactly once: ${what}`, async (t) => {
    const p = await fakeProvider(t, (_call, res) => reply(res, 200, answer));
    const err = await t.throwsAsync(createReranker(`tei@${p.url}`).rerank('q', ['a', 'b']), { instanceOf: ProviderError });
    t.true(err?.message.startsWith(`rerank provider tei@${p.url} answered something that is not [{index, score}] scoring each of the 2 documents once: `));
  });
}
