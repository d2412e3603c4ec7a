// `tessera import FILE --collection NAME`: upserts the records of a JSON lines file, one a line,
// or the rows of a vector file (.fvecs, .bvecs, .npy), --batch-size records per all-or-nothing
// batch; the next batch is read while the store writes one. A line's bytes go to the core as they
// are, so an Int keeps all 64 bits; a row's floats are written with digits enough to come back as
// the same float32. The position after each durable batch is saved beside the file, so --resume
// continues where a stopped or failed run left off.
import { createReadStream, statSync } from 'node:fs';
import * as path from 'node:path';
import { anyText, DISTANCES, type FlagSpec, flagHelp, integer, oneOf, readFlags, UsageError } from '../flags';
import { StoreError } from '../store/errors';
import { command } from './flags';
import { openWriter } from './open_store';
import { ImportPosition, positionFile, type Unit } from './import_position';
import { isBlank, isOneObject } from './json_objects';
import { Progress } from './progress';
import { MalformedFile, rowPlace, VectorFile, type VectorFormat, vectorFormat } from './vector_files';
import { joinedRecords, RecordWriter } from './vector_records';
import type { Distance } from '../types';

const DEFAULT_BATCH_SIZE = 1000;

interface ImportConfig {
  data: string;
  collection?: string;
  dimension?: number;
  distance?: Distance;
  batchSize: number;
  resume: boolean;
  ids?: string;
  file?: string;
}

interface Flag extends FlagSpec {
  key: keyof ImportConfig;
}

const FLAGS: Flag[] = [
  { name: '--collection', key: 'collection', parse: anyText, arg: 'NAME', help: 'collection to write; the first batch creates it (required)' },
  { name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory (default ./data); the store must not be served meanwhile' },
  {
    name: '--dimension',
    key: 'dimension',
    parse: integer(0, 65536),
    arg: 'N',
    help: "dimension of a new store, 0 = keyword-only (default: a vector file's; else the store's own)",
  },
  { name: '--distance', key: 'distance', parse: oneOf(DISTANCES), arg: 'M', help: 'Cosine | Euclidean | DotProduct of a new store (default Cosine)' },
  { name: '--batch-size', key: 'batchSize', parse: integer(1, 1_000_000), arg: 'N', help: `records per all-or-nothing batch (default ${DEFAULT_BATCH_SIZE})` },
  { name: '--ids', key: 'ids', parse: anyText, arg: 'FILE', help: "a vector file's ids, one a line, row 0's first (default: 0, 1, 2, ...)" },
  { name: '--resume', key: 'resume', help: `continue from the position saved in ${positionFile('FILE')} (default: from the start)` },
];

const IMPORT_USAGE = `usage: tessera import FILE --collection NAME [flags]

FILE is read by its extension, in any case:
  .fvecs   rows of an int32 dimension, then that many float32
  .bvecs   rows of an int32 dimension, then that many uint8, imported as floats (7 -> 7.0)
  .npy     NumPy format 1.0, 2.0 or 3.0: a 2-D '<f4' (float32) array in C order
  other    JSON lines (.jsonl): one record {"id", "vector"?, "vectors"?, "attrs"?} a line, as
           POST /collections/{name}/upsert takes them (blank lines skipped), sent to the store
           unparsed, so Int values keep all 64 bits
All three vector formats are little-endian. Rows (and the values in a row) count from 0, and
each row becomes a record {"id", "vector"} with the very float32 values of the file; its id is
its number ("0", "1", ...), or line N+1 of --ids FILE for row N (UTF-8 text, no blank lines, a
line for every row). A new store takes a vector file's dimension. Values must be finite.

--batch-size records go in each all-or-nothing batch. After each batch is durable, the position
after it is saved in ${positionFile('FILE')}; --resume continues from there, and a finished import
removes it. A bad line or row stops the import naming it (FILE:LINE, or FILE: row N at byte B)
and the problem, every line or row before it written: fix it and --resume.
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
  if (config.file === undefined) throw new UsageError('name the FILE to import');
  if (!config.collection) throw new UsageError('--collection NAME is required');
  if (config.ids !== undefined && vectorFormat(config.file) === null)
    throw new UsageError(`--ids names the rows of a vector file (.fvecs, .bvecs, .npy); the records of ${config.file} carry their own ids`);
  return config;
}

/** One line of a file: its bytes with the line end (what the position counts) and without. */
interface Line {
  number: number;
  raw: Buffer;
  text: Buffer;
  record: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

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

/** A piece of the file as the import counts it: a line of JSON lines, a vector file's row or an .npy header. */
interface Piece {
  /** Its line (from 1) or row (from 0); an .npy header is row -1. */
  number: number;
  /** Its bytes in the file, which the saved position moves past. */
  raw: Buffer;
  /** Its record as one JSON object; null for a blank line or a header. */
  record: Buffer | null;
}

/** A file as the import reads it. */
interface Source<P extends Piece> {
  unit: Unit;
  /** A vector file's dimension. */
  dimension?: number;
  /** The pieces from where `position` stands; a MalformedFile ends them. */
  pieces(position: ImportPosition): AsyncIterable<P>;
  /** How an error names `piece`. */
  where(piece: P): string;
  /** The upsert body of `pieces`' records. */
  body(pieces: P[]): Buffer;
}

function jsonLines(file: string): Source<Piece> {
  return {
    unit: 'line',
    async *pieces(position) {
      for await (const line of linesFrom(file, position.offset, position.next - 1)) {
        if (line.record && !isOneObject(line.text))
          throw new MalformedFile(`${file}:${line.number}: not one JSON object; each line holds one record {"id", "vector"?, "vectors"?, "attrs"?}`);
        yield { number: line.number, raw: line.raw, record: line.record ? line.text : null };
      }
    },
    where: (line) => `${file}:${line.number}`,
    body: (lines) => joinedRecords(recordsOf(lines)),
  };
}

/** The ids in `idsFile` from line `skip + 1` on, as JSON strings. */
async function* idsFrom(idsFile: string, skip: number): AsyncGenerator<string> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for await (const line of linesFrom(idsFile, 0, 0)) {
    if (line.number <= skip) continue;
    if (!line.record) throw new MalformedFile(`${idsFile}:${line.number}: a blank line; each line holds the id of one row (this one row ${line.number - 1}'s)`);
    const text = line.text.at(-1) === CARRIAGE_RETURN ? line.text.subarray(0, -1) : line.text;
    let id: string;
    try {
      id = utf8.decode(text);
    } catch {
      throw new MalformedFile(`${idsFile}:${line.number}: not UTF-8 text`);
    }
    yield JSON.stringify(id);
  }
}

interface Row extends Piece {
  offset: number;
}

function vectorRows(file: string, format: VectorFormat, idsFile: string | undefined): Source<Row> {
  const vectors = VectorFile.open(file, format);
  const writer = new RecordWriter();
  return {
    unit: 'row',
    dimension: vectors.dimension,
    async *pieces(position) {
      if (position.offset < vectors.header.length) yield { number: -1, offset: 0, raw: vectors.header, record: null };
      const ids = idsFile === undefined ? undefined : idsFrom(idsFile, position.next);
      try {
        for await (const row of vectors.rows(Math.max(position.offset, vectors.header.length), position.next)) {
          let id = `"${row.number}"`;
          if (ids !== undefined) {
            const line = await ids.next();
            if (line.done)
              throw new MalformedFile(`${rowPlace(file, row.number, row.offset)}: no id; ${idsFile} ends at line ${row.number}, and each row needs one`);
            id = line.value;
          }
          yield { number: row.number, offset: row.offset, raw: row.raw, record: writer.record(id, row.values) };
        }
      } finally {
        await ids?.return(undefined);
      }
    },
    where: (row) => rowPlace(file, row.number, row.offset),
    body: (rows) => writer.body(recordsOf(rows)),
  };
}

function recordsOf(pieces: Piece[]): Buffer[] {
  const records: Buffer[] = [];
  for (const { record } of pieces) if (record !== null) records.push(record);
  return records;
}

/** The core names a record by its place in the batch; a batch of one record has no other. */
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
  const size = fileSize(file);
  if (config.ids !== undefined) fileSize(config.ids);
  const format = vectorFormat(file);
  await importPieces(config, file, size, format === null ? jsonLines(file) : vectorRows(file, format, config.ids));
}

/** Opens the store, a new one with the dimension of `source` unless --dimension says otherwise. */
async function openFor(config: ImportConfig, file: string, source: Source<Piece>) {
  const own = source.dimension;
  if (own !== undefined && config.dimension !== undefined && config.dimension !== own)
    throw new UsageError(`--dimension ${config.dimension}, but ${file} has dimension ${own}`);
  try {
    return await openWriter({ path: config.data, dimension: config.dimension ?? own, distance: config.distance });
  } catch (e) {
    if (own === undefined || !(e instanceof StoreError && e.status === 400)) throw e;
    throw new StoreError(e.status, `${file} has dimension ${own}: ${e.message}`);
  }
}

async function importPieces<P extends Piece>(config: ImportConfig, file: string, size: number, source: Source<P>): Promise<void> {
  const collection = config.collection ?? '';
  const target = { collection, data: path.resolve(config.data) };
  const position = config.resume ? await ImportPosition.resume(file, target, source.unit) : ImportPosition.start(file, target, source.unit);
  const store = await openFor(config, file, source);
  const started = Date.now();
  const progress = new Progress('import');
  let written = 0;
  const show = (final: boolean) => {
    const percent = size > 0 ? Math.floor((position.offset / size) * 100) : 100;
    progress.update(position.offset, size, `${percent}% of ${bytesText(size)}, ${written} records`, final);
  };

  /** Pieces read since the last batch, blank lines included: the position moves past them all at once. */
  let pending: P[] = [];
  let pendingRecords = 0;
  const upsert = async (pieces: P[]) => {
    written += (await store.upsert(collection, source.body(pieces))).upserted;
  };
  const passed = (pieces: P[]) => {
    if (pieces.length > 0)
      position.advance(
        pieces.map((p) => p.raw),
        pieces[pieces.length - 1].number,
      );
  };
  /** A batch was refused: its records one at a time find the bad one, writing every one before it. */
  const findBadRecord = async (pieces: P[]) => {
    for (const [i, piece] of pieces.entries()) {
      if (piece.record === null) continue;
      await upsert([piece]).catch((e: Error) => {
        passed(pieces.slice(0, i));
        throw new Error(`${source.where(piece)}: ${ofOneRecord(e.message)}`);
      });
    }
  };
  const write = async (pieces: P[]) => {
    if (pieces.some((p) => p.record !== null)) await upsert(pieces).catch(() => findBadRecord(pieces));
    passed(pieces);
    show(false);
  };
  /** The batch the store is writing while the next is read, settled to its failure (null: written). */
  let writing: Promise<Error | null> = Promise.resolve(null);
  const settle = async () => {
    const failure = await writing;
    if (failure) throw failure;
  };
  /** Hands the pending pieces to the store once the batch before them is durable. */
  const commit = async () => {
    const pieces = pending;
    pending = [];
    pendingRecords = 0;
    await settle();
    writing = write(pieces).then(
      () => null,
      (e: Error) => e,
    );
  };

  try {
    let malformed: MalformedFile | undefined;
    try {
      for await (const piece of source.pieces(position)) {
        pending.push(piece);
        if (piece.record !== null && ++pendingRecords === config.batchSize) await commit();
      }
    } catch (e) {
      if (!(e instanceof MalformedFile)) throw e;
      // What came before a fault of the file is good: it is written, so the fixed file can --resume.
      malformed = e;
    }
    await commit();
    await settle();
    if (malformed) throw malformed;
    position.finish();
  } finally {
    await writing;
    show(true);
    await store.close();
  }
  process.stdout.write(`${JSON.stringify({ records: written, seconds: (Date.now() - started) / 1000 })}\n`);
}

/** `tessera import FILE --collection NAME ...`. */
export const importCommand = command('upsert a JSON lines or vector file of records in resumable batches', IMPORT_USAGE, parseImport, runImport);
