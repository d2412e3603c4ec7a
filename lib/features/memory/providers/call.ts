// How the library calls a provider: with the caller's cancellation as the AbortSignal it takes,
// and a failure of the provider's own answered 502.
import { StoreError } from '../../../store/errors';
import type { CallOptions } from '../../../store/cancellation';
import { ProviderError, ProviderSpecError } from './errors';

/** The AbortSignal of a call's options, for the provider's HTTP call. */
export const signalOf = (o: CallOptions | undefined): AbortSignal | undefined => o?.signal ?? o?.cancellation?.signal;

/**
 * A provider's failure is not the store's: 502 with the provider's own message (it names the
 * provider and what it answered), never an internal error.
 */
export async function provided<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    throw e instanceof ProviderError ? new StoreError(502, e.message) : e;
  }
}

/** Makes providers from their specs (no provider is called); a bad spec is the caller's 400. */
export function fromSpecs<T>(make: () => T): T {
  try {
    return make();
  } catch (e) {
    throw e instanceof ProviderSpecError ? new StoreError(400, e.message) : e;
  }
}
