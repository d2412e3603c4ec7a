// The kinds each role has, and the factories that turn a SPEC and options into a client.
import { cohereRerank, COHERE_BATCH } from './cohere';
import { HttpEmbedder } from './embed';
import { ExtractiveSummarizer } from './extractive';
import { HashEmbedder } from './hash';
import { ollamaEmbed, ollamaSummarize } from './ollama';
import { openaiEmbed, openaiSummarize } from './openai';
import { HttpReranker } from './rerank';
import { KEY_VARIABLE, type Role } from './roles';
import { httpIdentity, type KindRule, parseSpec, type Spec, specError } from './spec';
import { HttpSummarizer } from './summarize';
import { TEI_BATCH, teiEmbed, teiRerank } from './tei';
import { HttpClient } from './transport';
import type { Embedder, ProviderOptions, Reranker, Summarizer } from './types';

/** ProviderOptions with the defaults applied; batchSize stays unset so each kind can pick its own. */
interface Settings {
  dimension?: number;
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
  batchSize?: number;
  env: NodeJS.ProcessEnv;
}

type HttpKind<T> = KindRule & { form: 'http'; make(client: HttpClient, model: string | undefined, settings: Settings): T };
type NumberKind<T> = KindRule & { form: 'number'; make(n: number | undefined, settings: Settings): T };
type Kind<T> = HttpKind<T> | NumberKind<T>;

const EMBED_BATCH = 64;

const EMBEDDERS: Record<string, Kind<Embedder>> = {
  openai: {
    form: 'http',
    model: 'required',
    example: 'openai:text-embedding-3-small@https://api.openai.com',
    make: (client, model, s) => new HttpEmbedder(client, openaiEmbed(model as string), s.batchSize ?? EMBED_BATCH, s.dimension),
  },
  ollama: {
    form: 'http',
    model: 'required',
    example: 'ollama:nomic-embed-text@http://localhost:11434',
    make: (client, model, s) => new HttpEmbedder(client, ollamaEmbed(model as string), s.batchSize ?? EMBED_BATCH, s.dimension),
  },
  tei: {
    form: 'http',
    model: 'optional',
    example: 'tei@http://localhost:8080',
    make: (client, _model, s) => new HttpEmbedder(client, teiEmbed, s.batchSize ?? TEI_BATCH, s.dimension),
  },
  hash: { form: 'number', name: 'DIM', min: 1, max: 65536, example: 'hash:384', make: (n, s) => new HashEmbedder(hashDimension(n, s)) },
};

const SUMMARIZERS: Record<string, Kind<Summarizer>> = {
  openai: {
    form: 'http',
    model: 'required',
    example: 'openai:gpt-4o-mini@https://api.openai.com',
    make: (client, model) => new HttpSummarizer(client, openaiSummarize(model as string)),
  },
  ollama: {
    form: 'http',
    model: 'required',
    example: 'ollama:llama3.2@http://localhost:11434',
    make: (client, model) => new HttpSummarizer(client, ollamaSummarize(model as string)),
  },
  extractive: { form: 'number', name: 'N', min: 1, max: 100, example: 'extractive:3', make: (n) => new ExtractiveSummarizer(n ?? 3) },
};

const RERANKERS: Record<string, Kind<Reranker>> = {
  cohere: {
    form: 'http',
    model: 'required',
    example: 'cohere:rerank-v3.5@https://api.cohere.com',
    make: (client, model, s) => new HttpReranker(client, cohereRerank(model as string), s.batchSize ?? COHERE_BATCH),
  },
  jina: {
    form: 'http',
    model: 'required',
    example: 'jina:jina-reranker-v2-base-multilingual@https://api.jina.ai',
    make: (client, model, s) => new HttpReranker(client, cohereRerank(model as string), s.batchSize ?? COHERE_BATCH),
  },
  tei: {
    form: 'http',
    model: 'optional',
    example: 'tei@http://localhost:8080',
    make: (client, _model, s) => new HttpReranker(client, teiRerank, s.batchSize ?? TEI_BATCH),
  },
};

/** The embedder a SPEC names (see index.ts for the syntax). Throws ProviderSpecError for bad SPEC text. */
export const createEmbedder = (spec: string, options: ProviderOptions = {}): Embedder => create('embed', spec, options, EMBEDDERS);

/** The summarizer a SPEC names. Throws ProviderSpecError for bad SPEC text. */
export const createSummarizer = (spec: string, options: ProviderOptions = {}): Summarizer => create('summarize', spec, options, SUMMARIZERS);

/** The reranker a SPEC names. Throws ProviderSpecError for bad SPEC text. */
export const createReranker = (spec: string, options: ProviderOptions = {}): Reranker => create('rerank', spec, options, RERANKERS);

function create<T>(role: Role, text: string, options: ProviderOptions, kinds: Record<string, Kind<T>>): T {
  const settings = resolve(options);
  const spec: Spec = parseSpec(role, text, kinds);
  // parseSpec returns the form of the kind it found.
  if (spec.form === 'number') return (kinds[spec.kind] as NumberKind<T>).make(spec.n, settings);
  const client = new HttpClient({
    role,
    identity: httpIdentity(spec),
    url: spec.url,
    apiKey: settings.env[KEY_VARIABLE[role]]?.trim() || undefined,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    concurrency: settings.concurrency,
  });
  return (kinds[spec.kind] as HttpKind<T>).make(client, spec.model, settings);
}

/** hash's DIM, or the store's dimension when the SPEC gives none; the two must agree. */
function hashDimension(n: number | undefined, s: Settings): number {
  const dimension = n ?? s.dimension;
  if (dimension === undefined || dimension < 1) throw specError('embed', 'hash needs DIM, the vector dimension', 'hash:384');
  if (s.dimension !== undefined && dimension !== s.dimension)
    throw specError('embed', `hash:${dimension} makes ${dimension}-dimensional vectors but the store's dimension is ${s.dimension}`, `hash:${s.dimension}`);
  return dimension;
}

function resolve(o: ProviderOptions): Settings {
  const count = (name: keyof ProviderOptions, min: number): number | undefined => {
    const value = o[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
      throw new RangeError(`provider option ${name} must be an integer of at least ${min}, got ${String(value)}`);
    return value;
  };
  return {
    dimension: count('dimension', 0),
    timeoutMs: count('timeoutMs', 1) ?? 30_000,
    maxRetries: count('maxRetries', 0) ?? 3,
    concurrency: count('concurrency', 1) ?? 4,
    batchSize: count('batchSize', 1),
    env: o.env ?? process.env,
  };
}
