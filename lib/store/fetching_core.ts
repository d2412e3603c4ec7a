// A lazy reader's core (OpenOptions.resident): a call that fails because it touched collections the
// store does not hold (the core's error names them in `notResident`) has them fetched, then runs
// again. Synchronous methods pass through unchanged.
import type { NativeStore } from '../native';

/** Runs that may miss only collections fetched for them already before the call fails. */
const MAX_STALLS = 2;

/** The collections a core call found not resident, when that is why it failed. */
export const notResidentOf = (e: unknown): string[] | undefined => (e as { notResident?: string[] } | null)?.notResident;

export function fetchingCore(core: NativeStore, fetch: (names: string[]) => Promise<void>): NativeStore {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(core, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      let method = wrapped.get(key);
      if (method === undefined) {
        const run = (args: unknown[]): unknown => value.apply(target, args);
        method = (...args: unknown[]) => {
          const first = run(args);
          if (!(first instanceof Promise)) return first;
          return first.catch(async (e: unknown) => {
            // A call may find its collections missing a few at a time (a batch's legs): each
            // fetch asks for every one found so far, so none is dropped for the next. It stops
            // when runs keep missing nothing new (other reads dropped them meanwhile, each time).
            const needed = new Set<string>();
            let stalls = 0;
            for (;;) {
              const missing = notResidentOf(e);
              if (missing === undefined || (missing.every((n) => needed.has(n)) && ++stalls > MAX_STALLS)) throw e;
              for (const n of missing) needed.add(n);
              await fetch([...needed]);
              try {
                return await run(args);
              } catch (again) {
                e = again;
              }
            }
          });
        };
        wrapped.set(key, method);
      }
      return method;
    },
  });
}
