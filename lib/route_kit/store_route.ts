// Where a route meets the Store: call options tied to the request's cancellation, a route that
// answers the JSON of one Store call (and its raw-body collection write form), and the HTTP status
// of the Store's errors.
import type { ErrorStatus } from '../http/errors';
import { json } from '../http/reply';
import type { Request } from '../http/request';
import { type Route, type RouteDoc, type RouteHead, route } from '../http/route';
import { Cancellation, CancellationPool } from '../store/cancellation';
import { StoreError } from '../store/errors';
import type { Store } from '../store/store';
import type { CallOptions } from '../types';
import type { StoreSlot } from './slot';

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

interface StoreCall<B> extends RouteHead<B> {
  call(store: Store, req: Request<B>, options: CallOptions): Promise<unknown>;
}

/** A route whose answer is the JSON of one Store call. */
export const storeRoute = <B = undefined>(slot: StoreSlot, { call, ...def }: StoreCall<B>): Route =>
  route<B>({ ...def, handle: async (req) => json(await cancellable(req, (o) => call(slot.get(req), req, o))) });

type CollectionWrite = (store: Store, name: string, body: Uint8Array, options: CallOptions) => Promise<unknown>;

/** POST /collections/{name}/<action>: the raw body goes to the core, which parses and validates it. */
export const collectionWriteRoute = (slot: StoreSlot, action: string, doc: RouteDoc, call: CollectionWrite): Route =>
  storeRoute(slot, {
    method: 'POST',
    path: `/collections/{name}/${action}`,
    access: 'write',
    body: 'raw',
    doc,
    call: (store, req, o) => call(store, req.param('name'), req.bytes, o),
  });
