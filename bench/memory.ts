// bench:memory — the memory routes (issue 12) on real English text: the first 100,000 sentences of
// nlp-corpus@4.4.0 remembered one per id, then recalled by 2-3 word queries taken from seeded
// random sentences, one at a time through the library. Two embedders: the offline `hash:384`, and
// a local OpenAI-compatible server (this file forked with --provider) that answers every
// /v1/embeddings request after a fixed delay with hash vectors, so that what the store adds to a
// recall is visible beside the provider's own time. That time is measured in the same run: each
// recall is paired with a bare embedding call of the same query (to the server over HTTP, or the
// hash embedder in process), and `overhead_ms` is recall p50 minus that p50. Stores are HNSW
// (`--ann hnsw`), as a memory store of this size would run. The last stdout line is one JSON object.
//
// BENCH_N: memories (default 100,000); BENCH_QUERIES: recalls (default 500); BENCH_PROVIDER_MS:
// the server's fixed delay (default 2).
import { fork } from 'node:child_process';
import * as http from 'node:http';
import { Store } from '../lib/index';
import { createEmbedder } from '../lib/features/memory/providers';
import { benchSize, emit, freshDir, log, machine, nlpSentences, now, removeDir, Rng, round, runBench, summarize } from './common';

const DIM = 384;
const { n: N, queries: QUERIES } = benchSize(100_000, 500);
const PROVIDER_MS = Number(process.env.BENCH_PROVIDER_MS ?? 2);
/** Remembers in flight: what a busy ingesting client keeps open; writes share group commits. */
const IN_FLIGHT = 32;
const COLLECTION = 'memories';

/** The forked provider: an OpenAI-compatible /v1/embeddings answering after PROVIDER_MS. */
function provider(): void {
  const hash = createEmbedder(`hash:${DIM}`);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; input: string[] };
      const vectors = await hash.embed(body.input);
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({ object: 'list', model: body.model, data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })) }),
        );
      }, PROVIDER_MS);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
}

async function startProvider(): Promise<{ url: string; stop(): void }> {
  const proc = fork(__filename, ['--provider'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m) => resolve((m as { port: number }).port));
    proc.once('exit', (code) => reject(new Error(`provider exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => proc.kill() };
}

/** 2-3 distinct words (3+ letters) of a seeded random sentence. */
function queriesOf(sentences: string[]): string[] {
  const rng = new Rng(0x3e3011);
  const out: string[] = [];
  while (out.length < QUERIES) {
    const words = [...new Set(sentences[rng.int(sentences.length)].toLowerCase().match(/[a-z]{3,}/g) ?? [])];
    if (words.length < 2) continue;
    out.push(words.slice(0, 2 + rng.int(2)).join(' '));
  }
  return out;
}

interface CaseResult {
  embedder: string;
  remember_per_s: number;
  recall: ReturnType<typeof summarize>;
  provider: ReturnType<typeof summarize>;
  overhead_ms: number;
  top1_is_source: number;
}

async function runCase(name: string, spec: string, bareEmbed: (q: string) => Promise<unknown>, sentences: string[], queries: string[]): Promise<CaseResult> {
  const dir = freshDir(`memory-${name}`);
  const store = await Store.open({ path: dir, dimension: DIM, embedProvider: spec, ann: 'hnsw' });
  try {
    const t0 = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < sentences.length) {
          const i = next++;
          await store.remember(COLLECTION, { id: `s${i}`, text: sentences[i] });
        }
      }),
    );
    const rememberS = (now() - t0) / 1000;
    log(`  ${name}: remembered ${sentences.length} in ${rememberS.toFixed(1)} s`);
    await store.flush();
    await store.waitForIndexes();
    for (const q of queries.slice(0, 20)) await store.recall(COLLECTION, { query: q });
    const recallMs: number[] = [];
    const providerMs: number[] = [];
    let top1 = 0;
    for (const q of queries) {
      let t = now();
      await bareEmbed(q);
      providerMs.push(now() - t);
      t = now();
      const hits = await store.recall(COLLECTION, { query: q, top_k: 10 });
      recallMs.push(now() - t);
      const text = hits[0]?.attrs['svc.text'];
      if (text && typeof text === 'object' && 'Str' in text && q.split(' ').every((w) => text.Str.toLowerCase().includes(w))) top1++;
    }
    const recall = summarize(recallMs);
    const prov = summarize(providerMs);
    return {
      embedder: spec,
      remember_per_s: round(sentences.length / rememberS, 1),
      recall,
      provider: prov,
      overhead_ms: round(recall.p50_ms - prov.p50_ms, 4),
      top1_is_source: round(top1 / queries.length, 3),
    };
  } finally {
    await store.close();
    removeDir(dir);
  }
}

async function main(): Promise<void> {
  log(`bench:memory on ${JSON.stringify(machine())}`);
  const sentences = nlpSentences(N);
  const queries = queriesOf(sentences);
  log(`nlp-corpus: ${sentences.length} sentences, ${queries.length} queries`);

  const hash = createEmbedder(`hash:${DIM}`);
  const hashCase = await runCase('hash', `hash:${DIM}`, (q) => hash.embed([q]), sentences, queries);

  const server = await startProvider();
  let remote: CaseResult;
  try {
    const spec = `openai:fixed-${PROVIDER_MS}ms@${server.url}`;
    const bare = createEmbedder(spec, { dimension: DIM });
    remote = await runCase('openai', spec, (q) => bare.embed([q]), sentences, queries);
  } finally {
    server.stop();
  }

  emit({
    bench: 'memory',
    data: `real: first ${sentences.length} sentences of nlp-corpus@4.4.0 as memories (one remember each, ${IN_FLIGHT} in flight), ${queries.length} recalls of 2-3 words from seeded random sentences, one at a time, top_k 10; stores dimension ${DIM}, Cosine, ann hnsw`,
    remember_per_s: { hash: hashCase.remember_per_s, openai_fixed: remote.remember_per_s },
    recall_p50_ms: { hash: hashCase.recall.p50_ms, openai_fixed: remote.recall.p50_ms },
    recall_p99_ms: { hash: hashCase.recall.p99_ms, openai_fixed: remote.recall.p99_ms },
    overhead_ms: { hash: hashCase.overhead_ms, openai_fixed: remote.overhead_ms },
    target: 'overhead_ms (recall p50 minus the provider p50, same run) < 1 ms over 100k memories',
    cases: [hashCase, remote],
  });
}

if (process.argv.includes('--provider')) provider();
else runBench(main);
