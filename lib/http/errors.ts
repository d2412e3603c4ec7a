import { StoreError } from '../index';

/** An answer the HTTP layer gives itself; `fields` join `error` in the JSON body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** True for a fault of ours rather than the caller's: log it with its stack. */
  unexpected: boolean;
}

/** Maps anything thrown by a hook or a route to the spec's status table. */
export function answerFor(err: unknown, requestId: string): ErrorAnswer {
  if (err instanceof HttpError) {
    return { status: err.status, body: { error: err.message, ...err.fields }, headers: err.headers, unexpected: false };
  }
  if (err instanceof StoreError) {
    return { status: err.status, body: { error: err.message }, headers: {}, unexpected: err.status >= 500 && err.status !== 503 };
  }
  // Never a stack in the body: the request id lets an operator find it in the log.
  return { status: 500, body: { error: `internal error (request id ${requestId})` }, headers: {}, unexpected: true };
}
