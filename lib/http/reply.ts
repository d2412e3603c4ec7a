// Reply: what a route answers: a JSON value, bytes the core serialized, streamed pieces, or text.
/** Successive pieces of one response body; `next` resolves null once the body is complete. */
export interface PieceSource {
  next(maxBytes: number): Promise<Uint8Array | null>;
  close(): void;
}

/**
 * What a route answers. Bodies the core already serialized pass through as bytes; `headers` join the
 * response's own. A 304 has no body at all: not even `Content-Length: 0` (RFC 9110 §8.6).
 */
export type Reply =
  | { status: number; contentType: string; body: string | Uint8Array; headers?: Record<string, string> }
  | { status: number; contentType: string; pieces: PieceSource; headers?: Record<string, string> }
  | { status: 304; headers: Record<string, string> };

const JSON_TYPE = 'application/json';

export const json = (value: unknown, status = 200): Reply => ({ status, contentType: JSON_TYPE, body: JSON.stringify(value) });

export const jsonBytes = (bytes: Uint8Array, status = 200): Reply => ({ status, contentType: JSON_TYPE, body: bytes });

export const jsonPieces = (pieces: PieceSource, status = 200): Reply => ({ status, contentType: JSON_TYPE, pieces });

export const text = (body: string, status = 200, contentType = 'text/plain; charset=utf-8'): Reply => ({ status, contentType, body });

/** The client's cached copy (named by its If-None-Match) is current. */
export const notModified = (headers: Record<string, string>): Reply => ({ status: 304, headers });
