// StoreError, the one error type the library rejects with, and the conversion of whatever the
// core threw into it.

/** A failed call. `status` is the HTTP status the spec assigns to the failure. */
export class StoreError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'StoreError';
    this.status = status;
  }
  /** True when the call stopped because its AbortSignal fired. */
  get cancelled(): boolean {
    return this.status === 499;
  }
}

/** The core rejects with an Error carrying `status`; anything else is a fault of ours (500). */
export function toStoreError(e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const err = e as { status?: unknown; message?: unknown };
  if (typeof err?.status === 'number') return new StoreError(err.status, String(err.message));
  return new StoreError(500, e instanceof Error ? e.message : String(e));
}

export const cancelledError = () => new StoreError(499, 'the request was cancelled');
