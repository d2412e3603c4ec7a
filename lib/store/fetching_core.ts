// A lazy reader's core (OpenOptions.resident): a call that fails because it touched collections the
// store does not hold (the core's error names them in `notResident`) has them fetched, then runs
// again. Synchronous methods pass through unchanged.
import type { NativeStore } from '../native';

/** Fetches after which a call still finding collections missing fails (another read evicted them meanwhile, every time). */
const ATTEMPTS = 4;

const missingOf = (e: unknown): string[] | undefined => (e as { notResident?: string[] } | null)?.notResident;

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
            for (let attempt = 1; ; attempt++) {
              const missing = missingOf(e);
              if (missing === undefined || attempt === ATTEMPTS) throw e;
              await fetch(missing);
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
