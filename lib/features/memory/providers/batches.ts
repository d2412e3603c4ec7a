// Splitting a call into requests of bounded size and joining their answers.
import { follow } from './abort';

/**
 * Runs `run` on consecutive slices of items (at most `size` each), all at once: the client's limiter
 * bounds what is in flight. Answers are joined in input order. The first failure fails the whole call
 * and aborts the other slices, so a caller never gets part of an answer.
 */
export async function inBatches<I, O>(
  items: I[],
  size: number,
  signal: AbortSignal | undefined,
  run: (batch: I[], signal: AbortSignal) => Promise<O[]>,
): Promise<O[]> {
  signal?.throwIfAborted();
  const { controller, detach } = follow(signal);
  try {
    const parts: Promise<O[]>[] = [];
    for (let i = 0; i < items.length; i += size) parts.push(run(items.slice(i, i + size), controller.signal));
    return ([] as O[]).concat(...(await Promise.all(parts)));
  } catch (e) {
    controller.abort(e);
    throw e;
  } finally {
    detach();
  }
}
