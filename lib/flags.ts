// Command-line flags: a flag table's entries, the parsers of their values, the usage error and the
// reader of an argument list. The CLI's commands use it, and a feature declares its `tessera
// serve` flags with it (lib/features/feature.ts) without knowing the CLI.
import type { Distance } from './types';

/** A bad command line: reported on one line, exit status 2. */
export class UsageError extends Error {}

export type Parse = (raw: string, flag: string) => unknown;

export const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parse =>
  (raw, flag) => {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= min && n <= max)) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Milliseconds of `250ms`, `5s`, `2m`, `1h`; NaN for anything else. */
function milliseconds(raw: string): number {
  const m = /^(\d+)(ms|s|m|h)$/.exec(raw);
  return m ? Number(m[1]) * DURATION_UNITS[m[2]] : NaN;
}

export const duration: Parse = (raw, flag) => {
  const ms = milliseconds(raw);
  if (!(ms > 0)) throw new UsageError(`${flag} must be a positive duration like 250ms, 5s or 2m, got "${raw}"`);
  return ms;
};

/** A duration that may be zero (`0s`: none). */
export const durationOrZero: Parse = (raw, flag) => {
  const ms = milliseconds(raw);
  if (!(ms >= 0)) throw new UsageError(`${flag} must be a duration like 0s, 250ms, 5s or 2m, got "${raw}"`);
  return ms;
};

const SIZE_UNITS: Record<string, number> = { '': 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };

/** A byte count, plain or with a binary unit: 1048576, 512KiB, 64MiB, 8GiB, 2TiB. */
/** A byte count of at least `least`, in bytes or with a binary unit. */
export const sizeFrom =
  (least: number): Parse =>
  (raw, flag) => {
    const m = /^(\d+)(KiB|MiB|GiB|TiB)?$/.exec(raw);
    const bytes = m ? Number(m[1]) * SIZE_UNITS[m[2] ?? ''] : -1;
    if (!(bytes >= least && bytes <= Number.MAX_SAFE_INTEGER))
      throw new UsageError(`${flag} must be a size${least > 0 ? '' : ' (0 allowed)'} like 1048576, 512KiB, 64MiB or 8GiB, got "${raw}"`);
    return bytes;
  };

export const size = sizeFrom(1);

export const oneOf =
  (choices: readonly string[]): Parse =>
  (raw, flag) => {
    if (!choices.includes(raw)) throw new UsageError(`${flag} must be one of ${choices.join(', ')}, got "${raw}"`);
    return raw;
  };

export const anyText: Parse = (raw) => raw;

/** What --distance takes: pinned in the store's header when a command creates it. */
export const DISTANCES: readonly Distance[] = ['Cosine', 'Euclidean', 'DotProduct'];

/** One flag of a command's table; with no `parse` it takes no value and stands for `value` (default true). */
export interface FlagSpec {
  name: string;
  parse?: Parse;
  value?: unknown;
  arg?: string;
  help: string;
}

/** The table's help lines: name and argument in a column `width` wide, then the help. */
export const flagHelp = (flags: readonly FlagSpec[], width: number): string =>
  flags.map((f) => `  ${`${f.name}${f.arg ? ` ${f.arg}` : ''}`.padEnd(width)} ${f.help}`).join('\n');

/**
 * Reads `--flag value` and `--flag=value` against `flags`, handing each flag, its parsed value and
 * its text to `take`; a bare argument goes to `positional`, or is an unknown flag without it.
 */
export function readFlags<F extends FlagSpec>(
  args: string[],
  flags: readonly F[],
  command: string,
  take: (flag: F, value: unknown, raw: string | undefined) => void,
  positional?: (arg: string) => void,
): void {
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].split(/=(.*)/s, 2);
    if (positional && !name.startsWith('--')) {
      positional(args[i]);
      continue;
    }
    const flag = flags.find((f) => f.name === name);
    if (!flag) throw new UsageError(`unknown flag ${args[i]} (see tessera ${command} --help)`);
    if (!flag.parse) {
      if (inline !== undefined) throw new UsageError(`${name} takes no value`);
      take(flag, flag.value ?? true, undefined);
      continue;
    }
    const raw = inline ?? args[++i];
    if (raw === undefined) throw new UsageError(`${name} needs a value${flag.arg ? ` ${flag.arg}` : ''}`);
    take(flag, flag.parse(raw, name), raw);
  }
}
