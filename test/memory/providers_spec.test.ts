// SPEC text: what each role accepts, the identity it gives, and the ProviderSpecError for anything
// else, naming the flag, the bad part and a valid example.
import test from 'ava';
import { createEmbedder, createReranker, createSummarizer, ProviderSpecError } from '../../lib/features/memory/providers';

const CREATE = { embed: createEmbedder, summarize: createSummarizer, rerank: createReranker };

const IDENTITIES: [keyof typeof CREATE, string, string][] = [
  ['embed', 'openai:text-embedding-3-small@https://api.openai.com', 'openai:text-embedding-3-small@https://api.openai.com'],
  ['embed', 'openai:m@https://API.example.com:443/', 'openai:m@https://api.example.com'],
  ['embed', 'ollama:nomic-embed-text@http://localhost:11434', 'ollama:nomic-embed-text@http://localhost:11434'],
  ['embed', 'tei@http://localhost:8080/', 'tei@http://localhost:8080'],
  ['embed', ' hash:384 ', 'hash:384'],
  ['summarize', 'openai:gpt-4o-mini@https://api.openai.com', 'openai:gpt-4o-mini@https://api.openai.com'],
  ['summarize', 'ollama:llama3.2:3b@http://gpu:11434/ollama', 'ollama:llama3.2:3b@http://gpu:11434/ollama'],
  ['summarize', 'extractive', 'extractive:3'],
  ['summarize', 'extractive:5', 'extractive:5'],
  ['rerank', 'cohere:rerank-v3.5@https://api.cohere.com', 'cohere:rerank-v3.5@https://api.cohere.com'],
  ['rerank', 'jina:jina-reranker-v2-base-multilingual@https://api.jina.ai', 'jina:jina-reranker-v2-base-multilingual@https://api.jina.ai'],
  ['rerank', 'tei:BAAI/bge-reranker-base@http://localhost:8081', 'tei:BAAI/bge-reranker-base@http://localhost:8081'],
];

for (const [role, spec, identity] of IDENTITIES) {
  test(`${role} SPEC ${spec} has identity ${identity}`, (t) => {
    t.is(CREATE[role](spec, { env: { TESSERA_EMBED_API_KEY: 'k', TESSERA_SUMMARIZE_API_KEY: 'k', TESSERA_RERANK_API_KEY: 'k' } }).identity, identity);
  });
}

/** role, SPEC, what the message must name (besides the flag and an example). */
const BAD: [keyof typeof CREATE, string, string][] = [
  ['embed', '', 'no provider kind given; the kinds are openai, ollama, tei, hash'],
  ['embed', 'cohere:m@http://h', 'unknown kind "cohere"; the kinds are openai, ollama, tei, hash'],
  ['embed', 'OpenAI:m@http://h', 'unknown kind "OpenAI"'],
  ['summarize', 'tei@http://h', 'unknown kind "tei"; the kinds are openai, ollama, extractive'],
  ['rerank', 'hash:8', 'unknown kind "hash"; the kinds are cohere, jina, tei'],
  ['embed', 'openai', 'openai needs the URL of its server after "@"; write openai:MODEL@URL'],
  ['embed', 'openai:text-embedding-3-small', 'openai needs the URL of its server after "@"'],
  ['embed', 'openai@http://h', 'openai needs a model name; write openai:MODEL@URL'],
  ['embed', 'ollama:@http://h', 'the model name "" is empty or holds spaces'],
  ['embed', 'ollama:nomic embed@http://h', 'the model name "nomic embed" is empty or holds spaces'],
  ['embed', 'tei@localhost:8080', 'the URL must start with http:// or https://, got "localhost:8080"; write tei@URL or tei:MODEL@URL'],
  ['embed', 'tei@ftp://h', 'the URL must start with http:// or https://, got "ftp://h"'],
  ['embed', 'tei@not a url', '"not a url" is not a URL'],
  ['embed', 'tei@', '"" is not a URL'],
  ['embed', 'tei@http://h/?key=1', 'the URL "http://h/?key=1" has a query or fragment'],
  ['embed', 'tei@http://h/#x', 'has a query or fragment'],
  ['embed', 'hash:0', 'DIM must be an integer from 1 to 65536, got "0"; write hash or hash:DIM'],
  ['embed', 'hash:1.5', 'DIM must be an integer from 1 to 65536, got "1.5"'],
  ['embed', 'hash:65537', 'DIM must be an integer from 1 to 65536'],
  ['embed', 'hash:', 'DIM must be an integer from 1 to 65536, got ""'],
  ['embed', 'hash:8@http://h', 'hash runs in process and takes no @URL'],
  ['embed', 'hash', 'hash needs DIM, the vector dimension'],
  ['summarize', 'extractive:0', 'N must be an integer from 1 to 100, got "0"; write extractive or extractive:N'],
  ['summarize', 'extractive:many', 'N must be an integer from 1 to 100'],
  ['summarize', 'openai:gpt-4o-mini', 'openai needs the URL of its server after "@"'],
  ['rerank', 'cohere@https://api.cohere.com', 'cohere needs a model name; write cohere:MODEL@URL'],
  ['rerank', 'jina:m@https://api.jina.ai?x', 'has a query or fragment'],
];

const FLAGS = { embed: '--embed-provider', summarize: '--summarize-provider', rerank: '--rerank-provider' };

for (const [role, spec, problem] of BAD) {
  test(`${FLAGS[role]} "${spec}" is refused: ${problem}`, (t) => {
    const err = t.throws(() => CREATE[role](spec), { instanceOf: ProviderSpecError });
    t.true(err?.message.startsWith(`${FLAGS[role]}: `), err?.message);
    t.true(err?.message.includes(problem), err?.message);
    t.regex(err?.message ?? '', new RegExp(`\\(e\\.g\\. ${FLAGS[role]} [a-z]+\\S*\\)$`));
  });
}

test('an example in a SPEC error is itself a valid SPEC', (t) => {
  for (const [role, spec] of BAD) {
    const example = /\(e\.g\. \S+ (\S+)\)$/.exec(t.throws(() => CREATE[role](spec))?.message ?? '')?.[1] ?? '';
    t.notThrows(() => CREATE[role](example, { dimension: 384 }), `${role} ${example}`);
  }
});

test('a URL with credentials is refused without repeating them, pointing at the key variable', (t) => {
  const err = t.throws(() => createReranker('cohere:m@https://user:sk-secret@api.cohere.com'), { instanceOf: ProviderSpecError });
  t.regex(err?.message ?? '', /^--rerank-provider: the URL must not carry credentials: put the API key in TESSERA_RERANK_API_KEY/);
  t.false(err?.message.includes('sk-secret'));
});

test("hash:DIM must match the store's dimension, refused at creation naming both", (t) => {
  const err = t.throws(() => createEmbedder('hash:256', { dimension: 384 }), { instanceOf: ProviderSpecError });
  t.is(err?.message, "--embed-provider: hash:256 makes 256-dimensional vectors but the store's dimension is 384 (e.g. --embed-provider hash:384)");
});

test("a plain hash takes the store's dimension", (t) => {
  t.is(createEmbedder('hash', { dimension: 384 }).identity, 'hash:384');
});

test('options out of range are refused with a RangeError', (t) => {
  for (const options of [{ batchSize: 0 }, { concurrency: 0 }, { timeoutMs: 0 }, { maxRetries: -1 }, { concurrency: 1.5 }, { dimension: -1 }]) {
    t.throws(() => createEmbedder('tei@http://h', options), { instanceOf: RangeError }, JSON.stringify(options));
  }
});
