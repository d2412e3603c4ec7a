// Request bodies as JSON bytes, for the core and for the HTTP client alike: exact Int64, and a
// value JSON cannot hold (NaN, Infinity) refused as the caller's fault.
import { stringifyExact } from '../exact_json';
import { StoreError } from './errors';

/** The body's JSON bytes (bytes pass as they are); a value JSON cannot hold is a 400. */
export function bodyBytes(body: Uint8Array | object): Uint8Array {
  if (body instanceof Uint8Array) return body;
  try {
    return stringifyExact(body);
  } catch (e) {
    throw new StoreError(400, e instanceof Error ? e.message : String(e));
  }
}
