// What an object-store call can fail with. Callers branch on the class: a lease treats
// PreconditionFailed as "someone else wrote", NotFound as "nothing there", OutcomeUnknown as
// "my conditional write may or may not have landed: re-read to decide".

/** The store answered with an error, or could not be reached; `status` 0 means no answer. */
export class ObjectStoreError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The S3 error code (`AccessDenied`, `NoSuchBucket`, ...) or the socket error code. */
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A conditional write or read whose condition did not hold (412, or 409 for a conflicting conditional write). */
export class PreconditionFailed extends ObjectStoreError {}

/** No such key (or bucket) (404). */
export class NotFound extends ObjectStoreError {}

/** No answer at all: connection refused or reset, DNS failure, or the per-request timeout. */
export class Unreachable extends ObjectStoreError {}

/**
 * A conditional write that got no definite answer (timeout, reset, 5xx): it may have landed, or may
 * land later. Never retried blindly; `cause` is the failure seen.
 */
export class OutcomeUnknown extends ObjectStoreError {}

/** A failure a member waits out or a caller retries (a missing object, no answer, a 5xx, an unknown outcome), not a refusal such as 403. */
export const transient = (err: unknown): boolean =>
  err instanceof NotFound || err instanceof Unreachable || err instanceof OutcomeUnknown || (err instanceof ObjectStoreError && err.status >= 500);
