// Where a route meets the Store: call options tied to the request's cancellation, and the HTTP
// status of the Store's errors.
import type { ErrorStatus } from '../http/errors';
import type { Request } from '../http/request';
import { Cancellation, CancellationPool } from '../store/cancellation';
import { StoreError } from '../store/errors';
import type { CallOptions } from '../store/cancellation';

/** Call options that let the HTTP layer cancel the core's work on timeout or client abort, for as long as the request lasts. */
export const callOptions = (req: Request): CallOptions => ({ cancellation: req.cancelWith(new Cancellation()) });

const cancellations = new CancellationPool();

/**
 * Runs one Store call whose work the request's timeout or abort cancels; its handle is reused once
 * the call settled. A call that answers at once (Store.readJson of an inline read) is answered at
 * once, with no promise.
 */
export function cancellable<T>(req: Request, run: (options: CallOptions) => T | Promise<T>): T | Promise<T> {
  const cancellation = req.cancelWith(cancellations.take());
  const release = () => {
    req.forget(cancellation);
    cancellations.give(cancellation);
  };
  let answer: T | Promise<T>;
  try {
    answer = run({ cancellation });
  } catch (err) {
    release();
    throw err;
  }
  if (answer instanceof Promise) return answer.finally(release);
  release();
  return answer;
}

/** `then` for a value that may be there already: `f` runs at once on a value, after it on a promise. */
export const whenReady = <T, U>(value: T | Promise<T>, f: (v: T) => U): U | Promise<U> => (value instanceof Promise ? value.then(f) : f(value));

/** A StoreError carries the status the spec assigns to its failure. */
export const storeErrorStatus: ErrorStatus = (err) => (err instanceof StoreError ? err.status : null);
