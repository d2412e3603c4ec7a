// Hooks: the cross-cutting rules run around every request: bearer token, --read-only, shedding.
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './errors';
import type { Request } from './request';
import type { Route } from './route';

/** One cross-cutting concern, run around every request in the order the hooks are listed. */
export interface Hook {
  /** Runs before the body is read; throwing an HttpError answers the request instead of the route. */
  onRequest?(req: Request, route: Route | null): void;
  /** Runs when a read route's body made the request a write (Route.writeWhen); throwing answers it. */
  onWrite?(req: Request): void;
  /** Runs exactly once per request: after the last byte was sent, or when the client went away. */
  onResponse?(req: Request, status: number): void;
}

const isProbe = (route: Route | null) => route?.access === 'probe';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Bearer token on everything but the probes. Digests make the comparison constant-time whatever the length. */
export function authenticate(token: string): Hook {
  const expected = digest(token);
  return {
    onRequest(req, route) {
      if (isProbe(route)) return;
      const [scheme, presented] = req.authorization.split(' ', 2);
      const ok = scheme?.toLowerCase() === 'bearer' && presented !== undefined && timingSafeEqual(digest(presented), expected);
      if (!ok) throw new HttpError(401, 'missing or wrong bearer token; send "Authorization: Bearer <token>"', {}, { 'WWW-Authenticate': 'Bearer' });
    },
  };
}

/** `--read-only`: every write route answers 403 before any work starts. */
export const readOnlyRefusal = () => new HttpError(403, 'this server is read-only (--read-only); writes are refused');
export const refuseWrites: Hook = {
  onRequest(_req, route) {
    if (route?.access === 'write') throw readOnlyRefusal();
  },
  onWrite() {
    throw readOnlyRefusal();
  },
};

/**
 * `--max-concurrent-requests`: beyond it a request is refused untouched; probes always pass.
 * `active[0]` counts the requests admitted now: shared memory when several HTTP threads serve.
 */
export function shed(limit: number, active: Int32Array<ArrayBufferLike> = new Int32Array(1)): Hook {
  return {
    onRequest(req, route) {
      if (isProbe(route)) return;
      if (Atomics.add(active, 0, 1) >= limit) {
        Atomics.sub(active, 0, 1);
        throw new HttpError(
          503,
          `server is at --max-concurrent-requests (${limit}); nothing was attempted, retry shortly`,
          { retryable: true },
          { 'Retry-After': '1' },
        );
      }
      req.admitted = true;
    },
    onResponse(req) {
      if (!req.admitted) return;
      req.admitted = false;
      Atomics.sub(active, 0, 1);
    },
  };
}

/**
 * A request read within this long after the thread's last answer arrived while the thread was busy:
 * connections are queueing on it. (One client sending one request at a time leaves a gap of a
 * round trip, 50-100 us here.)
 */
const BUSY_GAP_MS = 0.05;

/**
 * While requests arrive back to back (the thread is saturated), each answer keeps the thread awake
 * (`keepAwake`) for the next one rather than letting it sleep in the event loop and pay a wake-up.
 * A thread whose client sends one request at a time is left to sleep between them: spinning there
 * measured a worse p99 (bench/README.md, "Where the ANN tail comes from").
 */
export function awakeWhenBusy(keepAwake: () => void): Hook {
  let lastAnswer = Number.NEGATIVE_INFINITY;
  let busy = false;
  return {
    onRequest(req) {
      busy = req.startedAt - lastAnswer < BUSY_GAP_MS;
    },
    onResponse() {
      lastAnswer = performance.now();
      if (busy) keepAwake();
    },
  };
}
