#!/usr/bin/env node
// The `tessera` command line: dispatches to `tessera serve` or another command, each with --help.
import { UsageError } from '../flags';
import { type Command, crash, exit } from './flags';
import { exportCommand } from './export';
import { importCommand } from './import';
import { ingestCommand } from './ingest';
import { restoreCommand } from './restore';
import { parseServe, serve, serveUsage } from './serve';
import { statsCommand } from './stats';

/** The commands beside serve, by name. */
const COMMANDS = new Map<string, Command>([
  ['ingest', ingestCommand],
  ['import', importCommand],
  ['export', exportCommand],
  ['stats', statsCommand],
  ['restore', restoreCommand],
]);

const COMMAND_LINES = `usage: ${['serve', ...COMMANDS.keys()].map((name) => `tessera ${name} [flags]`).join(' | ')}`;

function main(argv: string[]): void {
  const [name, ...rest] = argv;
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  if (name === '--help' || name === '-h' || name === 'help' || (name === 'serve' && wantsHelp)) {
    process.stdout.write(serveUsage([...COMMANDS].map(([name, c]) => `  ${`tessera ${name}`.padEnd(34)} ${c.summary}`).join('\n')));
    return;
  }
  const other = name === undefined ? undefined : COMMANDS.get(name);
  if (other) {
    if (wantsHelp) process.stdout.write(other.usage);
    else other.run(rest);
    return;
  }
  try {
    if (name !== 'serve') throw new UsageError(name === undefined ? `missing command; ${COMMAND_LINES}` : `unknown command "${name}"; ${COMMAND_LINES}`);
    serve(parseServe(rest, process.env)).catch(crash);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    exit(err.message, 2);
  }
}

main(process.argv.slice(2));
