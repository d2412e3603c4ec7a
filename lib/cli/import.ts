// `tessera import FILE.jsonl --collection NAME`: upserts one record per line, --batch-size lines
// per all-or-nothing batch, each durable before the next is read. The lines' bytes go to the core
// as they are, so an Int keeps all 64 bits; the position after each batch is saved beside the
// file, so --resume continues where a stopped or failed run left off.
import { createReadStream, statSync } from 'node:fs';
import * as path from 'node:path';
import { anyText, DISTANCES, type FlagSpec, flagHelp, integer, oneOf, readFlags, UsageError } from '../flags';
import { command } from './flags';
import { openWriter } from './open_store';
import { ImportPosition, positionFile } from './import_position';
import { isBlank, isOneObject } from './json_objects';
import { Progress } from './progress';
import type { Distance } from '../types';

const DEFAULT_BATCH_SIZE = 1000;

interface ImportConfig {
  data: string;
  collection?: string;
  dimension?: number;
  distance?: Distance;
  batchSize: number;
  resume: boolean;
  file?: string;
}

interface Flag extends FlagSpec {
  key: keyof ImportConfig;
}

const FLAGS: Flag[] = [
  { name: '--collection', key: 'collection', parse: anyText, arg: 'NAME', help: 'collection to write; the first batch creates it (required)' },
  { name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory (default ./data); the store must not be served meanwhile' },
  { name: '--dimension', key: 'dimension', parse: integer(0, 65536), arg: 'N', help: "dimension of a new store, 0 = keyword-only (default: the store's own)" },
  { name: '--distance', key: 'distance', parse: oneOf(DISTANCES), arg: 'M', help: 'Cosine | Euclidean | DotProduct of a new store (default Cosine)' },
  { name: '--batch-size', key: 'batchSize', parse: integer(1, 1_000_000), arg: 'N', help: `records per all-or-nothing batch (default ${DEFAULT_BATCH_SIZE})` },
  { name: '--resume', key: 'resume', help: `continue from the position saved in ${positionFile('FILE.jsonl')} (default: from the start)` },
];

const IMPORT_USAGE = `usage: tessera import FILE.jsonl --collection NAME [flags]

Upserts each line of FILE.jsonl, one record {"id", "vector"?, "vectors"?, "attrs"?} as
POST /collections/{name}/upsert takes them (blank lines skipped), --batch-size records per
all-or-nothing batch. The lines go to the store unparsed, so Int values keep all 64 bits.

After each batch is durable, the position after it is saved in ${positionFile('FILE.jsonl')};
--resume continues from there, and a finished import removes it. A bad line stops the import with
its line number and the store's reason, every line before it written: fix it and --resume.
Progress goes to stderr; the last stdout line is {"records", "seconds"}.

flags:
${flagHelp(FLAGS, 28)}
`;

function parseImport(args: string[]): ImportConfig {
  const config: ImportConfig = { data: './data', batchSize: DEFAULT_BATCH_SIZE, resume: false };
  readFlags(
    args,
    FLAGS,
    'import',
    (flag, value) => Object.assign(config, { [flag.key]: value }),
    (file) => {
      if (config.file !== undefined) throw new UsageError(`import takes one FILE, got ${config.file} and ${file}`);
      config.file = file;
    },
  );
  if (config.file === undefined) throw new UsageError('name the FILE.jsonl to import');
  if (!config.collection) throw new UsageError('--collection NAME is required');
  return config;
}

/** One line of the file: its bytes with the line end (what the position counts) and without. */
interface Line {
  number: number;
  raw: Buffer;
  text: Buffer;
  record: boolean;
}

const NEWLINE = 0x0a;

/** The lines of `file` from byte `offset`, numbered on from `line`. */
async function* linesFrom(file: string, offset: number, line: number): AsyncGenerator<Line> {
  let rest: Buffer = Buffer.alloc(0);
  const take = (raw: Buffer, text: Buffer): Line => ({ number: ++line, raw, text, record: !isBlank(text) });
  for await (const chunk of createReadStream(file, { start: offset, highWaterMark: 1 << 20 })) {
    const bytes = rest.length > 0 ? Buffer.concat([rest, chunk]) : (chunk as Buffer);
    let from = 0;
    for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, from)) {
      yield take(bytes.subarray(from, end + 1), bytes.subarray(from, end));
      from = end + 1;
    }
    rest = bytes.subarray(from);
  }
  if (rest.length > 0) yield take(rest, rest);
}

const OPEN = Buffer.from('{"records":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The upsert body of `lines`: their bytes joined, never parsed here. */
const upsertBody = (lines: Line[]) => Buffer.concat([OPEN, ...lines.flatMap((l, i) => (i === 0 ? [l.text] : [COMMA, l.text])), CLOSE]);

/** The core names a record by its place in the batch; a batch of one line has no other. */
const ofOneRecord = (message: string) => message.replaceAll('records[0].', '').replaceAll('records[0]', 'the record');

function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  return n < 2 ** 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 2 ** 20).toFixed(1)} MiB`;
}

function fileSize(file: string): number {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
  return stat.size;
}

async function runImport(config: ImportConfig): Promise<void> {
  const file = config.file ?? '';
  const collection = config.collection ?? '';
  const size = fileSize(file);
  const target = { collection, data: path.resolve(config.data) };
  const position = config.resume ? await ImportPosition.resume(file, target) : ImportPosition.start(file, target);
  const store = await openWriter({ path: config.data, dimension: config.dimension, distance: config.distance });
  const started = Date.now();
  const progress = new Progress('import');
  let written = 0;
  const show = (final: boolean) => {
    const percent = size > 0 ? Math.floor((position.offset / size) * 100) : 100;
    progress.update(position.offset, size, `${percent}% of ${bytesText(size)}, ${written} records`, final);
  };

  /** Lines read since the last durable batch, blank ones included: the position moves past them all at once. */
  let pending: Line[] = [];
  let pendingRecords = 0;
  const upsert = async (lines: Line[]) => {
    written += (await store.upsert(collection, upsertBody(lines))).upserted;
  };
  const passed = (lines: Line[]) => {
    if (lines.length > 0)
      position.advance(
        lines.map((l) => l.raw),
        lines[lines.length - 1].number,
      );
  };
  /** A batch was refused: its lines one at a time find the bad one, writing every line before it. */
  const findBadLine = async (lines: Line[]) => {
    for (const [i, line] of lines.entries()) {
      if (!line.record) continue;
      await upsert([line]).catch((e: Error) => {
        passed(lines.slice(0, i));
        throw new Error(`${file}:${line.number}: ${ofOneRecord(e.message)}`);
      });
    }
  };
  const commit = async () => {
    const lines = pending;
    const records = lines.filter((l) => l.record);
    pending = [];
    pendingRecords = 0;
    if (records.length > 0) await upsert(records).catch(() => findBadLine(lines));
    passed(lines);
    show(false);
  };

  try {
    for await (const line of linesFrom(file, position.offset, position.line)) {
      if (line.record && !isOneObject(line.text)) {
        await commit();
        throw new Error(`${file}:${line.number}: not one JSON object; each line holds one record {"id", "vector"?, "vectors"?, "attrs"?}`);
      }
      pending.push(line);
      if (line.record && ++pendingRecords === config.batchSize) await commit();
    }
    await commit();
    position.finish();
  } finally {
    show(true);
    await store.close();
  }
  process.stdout.write(`${JSON.stringify({ records: written, seconds: (Date.now() - started) / 1000 })}\n`);
}

/** `tessera import FILE.jsonl --collection NAME ...`. */
export const importCommand = command('upsert a JSONL file of records in resumable batches', IMPORT_USAGE, parseImport, runImport);
