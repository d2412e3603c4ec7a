// When a failed request is tried again, and how long to wait first.

const BACKOFF_BASE_MS = 200;
const BACKOFF_CAP_MS = 5_000;
/** A server asking for a longer pause is not waited on beyond this. */
const RETRY_AFTER_CAP_MS = 30_000;

/** Overload (429) and server faults (5xx) may pass; any other 4xx will answer the same again. */
export const retryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** Connection failures after the server was reached; a refused or unresolvable address fails at once. */
export const RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Exponential backoff before retry number `retry` (0-based), with jitter so clients do not retry in step. */
export const backoffMs = (retry: number): number => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry) * (0.5 + Math.random() / 2);

/** The wait a Retry-After header asks for (seconds or an HTTP date), capped; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - Date.now();
  return Number.isNaN(ms) ? undefined : Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}
