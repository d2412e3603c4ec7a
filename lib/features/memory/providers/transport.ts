// The one HTTP path every API kind uses: JSON POST with the key header, a per-client bound on requests
// in flight, a time budget per request, retries with backoff, and failures worded as ProviderErrors.
import { follow, sleep } from './abort';
import { ProviderError } from './errors';
import { Limiter } from './limiter';
import { backoffMs, RESET_CODES, retryableStatus, retryAfterMs } from './retry';
import type { Role } from './roles';

export interface ClientSettings {
  role: Role;
  identity: string;
  /** Base URL, without a trailing '/'; API paths are appended. */
  url: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
}

/** One failed attempt: what to report, and whether (and after how long) to try again. */
interface Failure {
  problem: string;
  status?: number;
  retry: boolean;
  waitMs?: number;
}

const EXCERPT_CHARS = 200;
const TIMED_OUT = Symbol('timed out');

export class HttpClient {
  readonly identity: string;
  private readonly slots: Limiter;
  private readonly headers: Record<string, string>;

  constructor(private readonly settings: ClientSettings) {
    this.identity = settings.identity;
    this.slots = new Limiter(settings.concurrency);
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (settings.apiKey) this.headers.authorization = `Bearer ${settings.apiKey}`;
  }

  /**
   * POSTs body as JSON to the base URL + path and resolves with the parsed answer. Rejects with a
   * ProviderError, or with the signal's reason when it aborts. The budget (timeoutMs) covers the
   * retries and their waits; waiting for a slot of the limiter does not count.
   */
  async post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const release = await this.slots.acquire(signal);
    try {
      const payload = JSON.stringify(body);
      const deadline = Date.now() + this.settings.timeoutMs;
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.attempt(path, payload, deadline, signal);
        if ('answer' in outcome) return outcome.answer;
        const wait = outcome.waitMs ?? backoffMs(attempt - 1);
        if (!outcome.retry || attempt > this.settings.maxRetries || Date.now() + wait >= deadline) {
          const after = attempt > 1 ? ` (after ${attempt} attempts)` : '';
          throw this.error(`${outcome.problem}${after}`, outcome.status);
        }
        await sleep(wait, signal);
      }
    } finally {
      release();
    }
  }

  /** A ProviderError whose message names the role and this provider, then the problem. */
  error(problem: string, status?: number): ProviderError {
    return new ProviderError(this.identity, `${this.settings.role} provider ${this.identity} ${problem}`, status);
  }

  /** The error for a well-formed JSON answer of the wrong shape. */
  malformed(expected: string, answer: unknown): ProviderError {
    return this.error(`answered something that is not ${expected}: ${this.excerpt(JSON.stringify(answer))}`);
  }

  private async attempt(path: string, payload: string, deadline: number, signal?: AbortSignal): Promise<{ answer: unknown } | Failure> {
    const { controller, detach } = follow(signal);
    const timer = setTimeout(() => controller.abort(TIMED_OUT), deadline - Date.now());
    try {
      const res = await fetch(this.settings.url + path, { method: 'POST', headers: this.headers, body: payload, signal: controller.signal });
      const text = await res.text();
      if (!res.ok) {
        const problem = `answered ${res.status} ${res.statusText} to POST ${path}: ${this.excerpt(text)}`;
        return { problem, status: res.status, retry: retryableStatus(res.status), waitMs: retryAfterMs(res.headers.get('retry-after')) };
      }
      try {
        return { answer: JSON.parse(text) };
      } catch {
        return { problem: `answered something that is not JSON: ${this.excerpt(text)}`, retry: false };
      }
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (controller.signal.reason === TIMED_OUT) return { problem: `did not answer within ${duration(this.settings.timeoutMs)}`, retry: false };
      const code = errorCode(e);
      if (code === undefined) return { problem: `could not be called (${this.excerpt(String((e as Error)?.message ?? e))})`, retry: false };
      if (RESET_CODES.has(code)) return { problem: `dropped the connection (${code})`, retry: true };
      return { problem: `is unreachable (${code})`, retry: false };
    } finally {
      clearTimeout(timer);
      detach();
    }
  }

  /** The start of a body for a message: one line, and never the key, even when a server echoes it. */
  private excerpt(text: string): string {
    let line = text.replace(/\s+/g, ' ').trim();
    if (this.settings.apiKey) line = line.replaceAll(this.settings.apiKey, '***');
    if (line === '') return '(empty body)';
    return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line;
  }
}

/** The system error code under fetch's "fetch failed" (ECONNREFUSED...); several addresses tried give an AggregateError. */
function errorCode(e: unknown): string | undefined {
  const cause = (e as { cause?: { code?: unknown; errors?: { code?: unknown }[] } })?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

const duration = (ms: number): string => (ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`);
