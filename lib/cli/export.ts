// `tessera export --collection NAME`: every live record of a collection as JSONL, one
// {"id", "vector", "vectors"?, "attrs"} per line as the core writes them (Ints exact), streamed
// from one snapshot. What it writes, `tessera import` reads back.
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { anyText, type FlagSpec, flagHelp, readFlags, UsageError } from '../flags';
import { command } from './flags';
import { openReader } from './open_store';
import { ArrayObjects } from './json_objects';
import type { RecordsCursor } from '../store/cursor';
import { StoreError } from '../store/errors';

interface ExportConfig {
  data: string;
  collection?: string;
  out?: string;
}

interface Flag extends FlagSpec {
  key: keyof ExportConfig;
}

const FLAGS: Flag[] = [
  { name: '--collection', key: 'collection', parse: anyText, arg: 'NAME', help: 'collection (or alias) to export (required)' },
  { name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory (default ./data); it may be served meanwhile' },
  { name: '--out', key: 'out', parse: anyText, arg: 'FILE', help: 'write to FILE, which appears only once complete (default: stdout)' },
];

const EXPORT_USAGE = `usage: tessera export --collection NAME [flags]

Writes every live record of the collection as JSON lines {"id", "vector", "vectors"?, "attrs"},
read from one snapshot: what a server serving the store had made durable when the export began
(the export opens the store read-only and takes no lock). Int values keep all 64 bits, and
tessera import reads the lines back. The last stderr line is {"records", "seconds"}.

flags:
${flagHelp(FLAGS, 28)}
`;

function parseExport(args: string[]): ExportConfig {
  const config: ExportConfig = { data: './data' };
  readFlags(args, FLAGS, 'export', (flag, value) => Object.assign(config, { [flag.key]: value }));
  if (!config.collection) throw new UsageError('--collection NAME is required');
  return config;
}

const NEWLINE = Buffer.from('\n');

/** The cursor's records as lines, a piece at a time; closes the cursor however the reading ends. */
async function* jsonLines(cursor: RecordsCursor, counted: (records: number) => void): AsyncGenerator<Buffer> {
  const objects = new ArrayObjects();
  try {
    for (let piece = await cursor.next(); piece !== null; piece = await cursor.next()) {
      const records = objects.push(piece);
      counted(records.length);
      if (records.length > 0) yield Buffer.concat(records.flatMap((r) => [r, NEWLINE]));
    }
  } finally {
    cursor.close();
  }
}

async function runExport(config: ExportConfig): Promise<void> {
  const started = Date.now();
  const store = await openReader(config.data);
  let records = 0;
  try {
    const lines = jsonLines(await store.recordsCursor(config.collection ?? ''), (n) => (records += n));
    if (config.out === undefined) {
      // A reader that stops early (`| head`) ends the export, quietly: it has what it wanted.
      const readerLeft = await pipeline(lines, process.stdout, { end: false }).then(
        () => false,
        (e: NodeJS.ErrnoException) => {
          if (e.code !== 'EPIPE') throw e;
          return true;
        },
      );
      if (readerLeft) return;
    } else {
      // Written aside and renamed at the end, so FILE is never a partial export.
      const partial = `${config.out}.partial`;
      try {
        await pipeline(lines, createWriteStream(partial));
        renameSync(partial, config.out);
      } catch (e) {
        rmSync(partial, { force: true });
        throw e instanceof StoreError ? e : new Error(`cannot write ${config.out}: ${(e as Error).message}`);
      }
    }
  } finally {
    await store.close();
  }
  process.stderr.write(`${JSON.stringify({ records, seconds: (Date.now() - started) / 1000 })}\n`);
}

/** `tessera export --collection NAME ...`. */
export const exportCommand = command("write a collection's records as JSONL", EXPORT_USAGE, parseExport, runExport);
