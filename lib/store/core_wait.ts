// While a core read is outstanding, the JS thread keeps polling for its completion for a bounded
// time instead of sleeping in the event loop. Waking a sleeping thread costs 30–90 µs on a VM,
// about as much as a small search itself. A queued immediate keeps libuv's poll from blocking
// (timers and I/O still run on every turn), and each turn settles the reads finished so far
// itself (`pollCompletions`), so a finished read needs no signal through the thread-safe
// function and no second turn to be delivered. The budget bounds what the polling burns when a
// read runs long, after which the loop sleeps until the completion signal wakes it as before.
// A turn yields the CPU while a call waits for a query thread to begin it, and otherwise every
// 20 µs (a yield is a syscall, microseconds on a VM): when the query thread shares the CPU (a
// loaded host), the read runs at once instead of after the polling (measured on one CPU: 500 µs
// added to every read without yielding, 40 with). A read the core ran inline has settled
// already: with no call pending in the core there is nothing to poll for, and each yield would
// hand the CPU to any other process waiting for it (measured with two CPU hogs: an inline read's
// loop ran 2.5x slower, stalled for whole time slices).
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { native } from '../native';

/** How long after the latest read began the JS thread polls rather than sleeps, in ms. */
const POLL_MS = 0.25;

let outstanding = 0;
let polling = false;
/** When the latest read began (performance.now()). */
let lastStart = 0;
/** Until when the thread stays awake for the next request (keepAwake), performance.now(). */
let awakeUntil = 0;

function poll(): void {
  const now = performance.now();
  const keep = outstanding > 0 && now - lastStart < POLL_MS;
  native.pollCompletions(keep);
  if (keep || now < awakeUntil) setImmediate(poll);
  else polling = false;
}

function startPolling(): void {
  if (polling) return;
  polling = true;
  setImmediate(poll);
}

/**
 * Keeps this thread from sleeping for POLL_MS: its event loop turns without blocking (yielding the
 * CPU now and then), so a request arriving meanwhile is read at once instead of after a wake-up
 * (30-90 us on a VM). A server calls it as it answers while requests queue on it (lib/http's
 * awakeWhenBusy).
 */
export function keepAwake(): void {
  awakeUntil = performance.now() + POLL_MS;
  startPolling();
}

/** Whether the JS thread is polling now (for tests). */
export const pollingNow = (): boolean => polling;

/** Awaits a core read, polling for its completion meanwhile (see above). */
export async function awaitRead<T>(pending: Promise<T>): Promise<T> {
  if (native.beginPolling() === 0) return pending;
  outstanding++;
  lastStart = performance.now();
  startPolling();
  try {
    return await pending;
  } finally {
    outstanding--;
  }
}
