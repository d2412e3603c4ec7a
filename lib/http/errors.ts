// HTTP error answers: HttpError (raised by this layer) and the mapping of anything a hook or
// route threw onto a status and an {"error"} body.

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

/**
 * The HTTP status of an error raised below this layer (by the library a route calls), or null for
 * an error that has none. The server is given one, so this layer never imports the library.
 */
export type ErrorStatus = (err: unknown) => number | null;

/** Maps anything thrown by a hook or a route to the spec's status table. */
export function answerFor(err: unknown, requestId: string, statusOf: ErrorStatus): ErrorAnswer {
  if (err instanceof HttpError) {
    return { status: err.status, body: { error: err.message, ...err.fields }, headers: err.headers, unexpected: false };
  }
  const status = statusOf(err);
  if (status !== null) {
    return { status, body: { error: (err as Error).message }, headers: {}, unexpected: status >= 500 && status !== 503 };
  }
  // Never a stack in the body: the request id lets an operator find it in the log.
  return { status: 500, body: { error: `internal error (request id ${requestId})` }, headers: {}, unexpected: true };
}
