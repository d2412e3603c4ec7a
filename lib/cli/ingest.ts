// `tessera ingest`: chunks text files, or JSONL lines of {id, text, attrs?}, into a collection of a
// store through the memory route `remember` (one document at a time per worker); or, with --code
// DIR, a source tree through Store.ingestCode. Progress goes to stderr and a one-line JSON summary
// to stdout.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { anyText, type FlagSpec, flagHelp, integer, oneOf, readFlags, size, UsageError } from '../flags';
import { command } from './flags';
import { openWriter } from './open_store';
import type { ChunkStrategy } from '../features/memory/chunking';
import { Progress } from './progress';
import type { Value } from '../types';

const STRATEGIES: readonly ChunkStrategy[] = ['Recursive', 'Markdown', 'Sentence'];
/** Documents remembered at once: embedding calls overlap, writes share group commits. */
const WORKERS = 4;

interface IngestConfig {
  data: string;
  collection?: string;
  dimension?: number;
  embedProvider?: string;
  strategy?: ChunkStrategy;
  maxChars?: number;
  overlapChars?: number;
  jsonl: boolean;
  code?: string;
  maxFileBytes?: number;
  files: string[];
}

interface Flag extends FlagSpec {
  key: keyof IngestConfig;
}

const FLAGS: Flag[] = [
  { name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory (default ./data); the store must not be served meanwhile' },
  { name: '--collection', key: 'collection', parse: anyText, arg: 'NAME', help: 'collection to write (required)' },
  { name: '--dimension', key: 'dimension', parse: integer(0, 65536), arg: 'N', help: 'dimension of a new store (0: keyword-only, --code without an embedder)' },
  { name: '--embed-provider', key: 'embedProvider', parse: anyText, arg: 'SPEC', help: 'embedder, as tessera serve takes it (required, except with --code)' },
  { name: '--code', key: 'code', parse: anyText, arg: 'DIR', help: 'ingest the source tree DIR as symbol chunks (README "Code search"); takes no FILE' },
  { name: '--max-file-bytes', key: 'maxFileBytes', parse: size, arg: 'SIZE', help: 'with --code: skip larger files (default 1MiB)' },
  {
    name: '--strategy',
    key: 'strategy',
    parse: oneOf(STRATEGIES),
    arg: 'S',
    help: 'Recursive | Markdown | Sentence (default Markdown for .md files, else Recursive)',
  },
  { name: '--max-chars', key: 'maxChars', parse: integer(1), arg: 'N', help: 'chunk size in characters (default 1000)' },
  { name: '--overlap-chars', key: 'overlapChars', parse: integer(0), arg: 'N', help: 'characters a chunk repeats of the previous one (default 100)' },
  { name: '--jsonl', key: 'jsonl', help: 'read every file as JSONL lines {"id", "text", "attrs"?} (default: only *.jsonl files)' },
];

const INGEST_USAGE = `usage: tessera ingest --collection NAME --embed-provider SPEC [flags] FILE...
       tessera ingest --code DIR --collection NAME [--embed-provider SPEC] [flags]

Chunks each text file (its id is the path as given) or each JSONL line into records {id}#{index}
of the collection, embedding them with the provider, like POST /collections/{name}/remember with
chunking. Progress goes to stderr; the last stdout line is {"documents", "chunks", "seconds"}.

With --code, the tree DIR (honouring .gitignore files; never .git or node_modules; no binary file
or file above --max-file-bytes) becomes records {path}#{index}, one per function, method, class...
for the languages parsed, by heading for Markdown, generic chunks otherwise, embedded when an
embedder is given; a re-ingest rewrites changed files only and deletes the chunks of files gone.
The last stdout line is {"files", "written", "unchanged", "removed", "chunks", "skipped", "seconds"}.

flags:
${flagHelp(FLAGS, 28)}
`;

function parseIngest(args: string[]): IngestConfig {
  const config: IngestConfig = { data: './data', jsonl: false, files: [] };
  readFlags(
    args,
    FLAGS,
    'ingest',
    (flag, value) => Object.assign(config, { [flag.key]: value }),
    (file) => config.files.push(file),
  );
  if (!config.collection) throw new UsageError('--collection NAME is required');
  if (config.code !== undefined) {
    if (config.files.length > 0) throw new UsageError(`--code DIR takes no FILE (got ${config.files[0]})`);
    return config;
  }
  if (config.maxFileBytes !== undefined) throw new UsageError('--max-file-bytes goes with --code DIR');
  if (!config.embedProvider) throw new UsageError('--embed-provider SPEC is required (for example hash:384)');
  if (config.files.length === 0) throw new UsageError('name at least one FILE to ingest');
  return config;
}

interface Document {
  id: string;
  text: string;
  attrs?: Record<string, Value>;
  strategy: ChunkStrategy;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The documents of one file: the file itself, or one per JSONL line. */
function documentsOf(file: string, config: IngestConfig): Document[] {
  let text: string;
  try {
    text = utf8.decode(readFileSync(file));
  } catch (e) {
    throw new Error(`${file}: ${e instanceof TypeError ? 'not valid UTF-8 text' : (e as Error).message}`);
  }
  const strategy = config.strategy ?? (/\.(md|markdown)$/i.test(file) ? 'Markdown' : 'Recursive');
  if (!config.jsonl && path.extname(file).toLowerCase() !== '.jsonl') return [{ id: file, text, strategy }];
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    const where = `${file}:${i + 1}`;
    let doc: { id?: unknown; text?: unknown; attrs?: unknown };
    try {
      doc = JSON.parse(line);
    } catch {
      throw new Error(`${where}: not a JSON line`);
    }
    if (typeof doc.id !== 'string' || doc.id === '' || typeof doc.text !== 'string')
      throw new Error(`${where}: a line needs a string "id" and a string "text"`);
    return [{ id: doc.id, text: doc.text, attrs: doc.attrs as Record<string, Value> | undefined, strategy }];
  });
}

/** The store a run writes, with the embedder its documents need. */
const writerFor = (config: IngestConfig) => openWriter({ path: config.data, dimension: config.dimension, embedProvider: config.embedProvider });

async function runCodeIngest(config: IngestConfig, dir: string): Promise<void> {
  const store = await writerFor(config);
  const started = Date.now();
  const progress = new Progress('ingest');
  let last = { done: 0, total: 0, chunks: 0 };
  const show = (final: boolean) => progress.update(last.done, last.total, `${last.done}/${last.total} files, ${last.chunks} chunks`, final);
  try {
    const result = await store.ingestCode(config.collection ?? '', dir, {
      max_file_bytes: config.maxFileBytes,
      max_chars: config.maxChars,
      overlap_chars: config.overlapChars,
      onProgress: ({ done, total, chunks }) => {
        last = { done, total, chunks };
        show(false);
      },
    });
    last.chunks = result.chunks;
    show(true);
    process.stdout.write(`${JSON.stringify({ ...result, seconds: (Date.now() - started) / 1000 })}\n`);
  } finally {
    await store.close();
  }
}

async function runIngest(config: IngestConfig): Promise<void> {
  if (config.code !== undefined) return runCodeIngest(config, config.code);
  const collection = config.collection ?? '';
  const documents = config.files.flatMap((f) => documentsOf(f, config));
  const store = await writerFor(config);
  const started = Date.now();
  const progress = new Progress('ingest');
  let done = 0;
  let chunks = 0;
  const show = (final: boolean) => progress.update(done, documents.length, `${done}/${documents.length} documents, ${chunks} chunks`, final);
  try {
    const chunking = {
      ...(config.maxChars === undefined ? {} : { max_chars: config.maxChars }),
      ...(config.overlapChars === undefined ? {} : { overlap_chars: config.overlapChars }),
    };
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < documents.length && !failed) {
        const doc = documents[next++];
        const body = { id: doc.id, text: doc.text, attrs: doc.attrs, chunking: { ...chunking, strategy: doc.strategy } };
        const written = await store.remember(collection, body).catch((e: Error) => {
          failed = true; // the other workers stop before their next document
          throw new Error(`${doc.id}: ${e.message}`);
        });
        chunks += written.upserted;
        done++;
        show(false);
      }
    };
    const workers = Array.from({ length: Math.min(WORKERS, documents.length) }, worker);
    const settled = await Promise.allSettled(workers);
    const failure = settled.find((r) => r.status === 'rejected');
    if (failure) throw (failure as PromiseRejectedResult).reason;
    show(true);
  } finally {
    await store.close();
  }
  process.stdout.write(`${JSON.stringify({ documents: done, chunks, seconds: (Date.now() - started) / 1000 })}\n`);
}

/** `tessera ingest ...`. */
export const ingestCommand = command('chunk and embed files, JSONL or a source tree into a collection', INGEST_USAGE, parseIngest, runIngest);
