// Runs one core call, wiring the caller's AbortSignal or Cancellation to a core cancel token and
// turning every rejection into a StoreError.
import { native, type NativeCancelToken, type ReadAnswer } from '../native';
import type { CallOptions } from './cancellation';
import { awaitRead } from './core_wait';
import { cancelledError, toStoreError } from './errors';

/** True once the caller's signal or cancellation has fired. */
export const isCancelled = (options: CallOptions | undefined): boolean => !!(options?.signal?.aborted || options?.cancellation?.cancelled);

/** Runs a core call, wiring the caller's cancellation (an AbortSignal or a Cancellation) to a core cancel token. */
export async function call<T>(options: CallOptions | undefined, run: (token?: NativeCancelToken) => T | Promise<T>): Promise<T> {
  const signal = options?.signal;
  if (isCancelled(options)) throw cancelledError();
  if (!signal) {
    try {
      return await run(options?.cancellation?.token);
    } catch (e) {
      throw toStoreError(e);
    }
  }
  const token = new native.CancelToken();
  const onAbort = () => token.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await run(token);
  } catch (e) {
    throw toStoreError(e);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

const rethrown = (e: unknown): never => {
  throw toStoreError(e);
};

/**
 * A core read: `call`, except that a read the core ran on the calling thread answers its bytes at
 * once (no promise, no turn of the event loop), and a queued one is awaited with the JS thread
 * polling for it (core_wait.ts). Failures are always a rejected promise.
 */
export function read(options: CallOptions | undefined, run: (token?: NativeCancelToken) => ReadAnswer): ReadAnswer {
  if (options?.signal) return awaitRead(call(options, run));
  if (isCancelled(options)) return Promise.reject(cancelledError());
  let answer: ReadAnswer;
  try {
    answer = run(options?.cancellation?.token);
  } catch (e) {
    return Promise.reject(toStoreError(e));
  }
  return answer instanceof Promise ? awaitRead(answer.catch(rethrown)) : answer;
}
