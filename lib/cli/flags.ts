// What the `tessera` commands share beside their flags (../flags.ts): the one-line exit and the way
// a command beside serve runs.
import { UsageError } from '../flags';
import { StoreError } from '../store/errors';

/** One line on stderr, then exit. */
export function exit(message: string, code: number): never {
  process.stderr.write(`tessera: ${message}\n`);
  process.exit(code);
}

/** A bug: the stack is worth the extra lines. */
export const crash = (err: unknown): never => exit((err as Error)?.stack ?? String(err), 1);

/** A `tessera` command beside serve: what it does in a few words, its --help text, and how it runs on its arguments. */
export interface Command {
  summary: string;
  usage: string;
  run(args: string[]): void;
}

/**
 * A command that reads its flags, then runs. Exit 2, with one line, for a bad command line, a
 * usage problem found while running (a --resume that does not fit), or a store refusing what the
 * command asked (400: a setting; 404: no such collection); exit 1 for any other failure.
 */
export function command<C>(summary: string, usage: string, parse: (args: string[]) => C, run: (config: C) => Promise<void>): Command {
  return {
    summary,
    usage,
    run(args) {
      let config: C;
      try {
        config = parse(args);
      } catch (e) {
        if (e instanceof UsageError) exit(e.message, 2);
        throw e;
      }
      run(config).catch((e: Error) => {
        const refused = e instanceof UsageError || (e instanceof StoreError && (e.status === 400 || e.status === 404));
        exit(e.message, refused ? 2 : 1);
      });
    },
  };
}
