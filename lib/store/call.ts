// Runs one core call, wiring the caller's AbortSignal or Cancellation to a core cancel token and
// turning every rejection into a StoreError.
import { native, type NativeCancelToken } from '../native';
import type { CallOptions } from '../types';
import { awaitRead } from './core_wait';
import { cancelledError, toStoreError } from './errors';

/** True once the caller's signal or cancellation has fired. */
export const isCancelled = (options: CallOptions | undefined): boolean => !!(options?.signal?.aborted || options?.cancellation?.cancelled);

/** Runs a core call, wiring the caller's cancellation (an AbortSignal or a Cancellation) to a core cancel token. */
export async function call<T>(options: CallOptions | undefined, run: (token?: NativeCancelToken) => Promise<T>): Promise<T> {
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

/** A core read: `call`, with the JS thread polling for the answer a short while (core_wait.ts). */
export function read<T>(options: CallOptions | undefined, run: (token?: NativeCancelToken) => Promise<T>): Promise<T> {
  return awaitRead(call(options, run));
}
