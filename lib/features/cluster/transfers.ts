// How many object-store requests cluster mode has in flight at once, and the loop that keeps
// to it.

/** Objects a restore fetches, a publish uploads or a sweep deletes at once. */
export const TRANSFER_CONCURRENCY = 8;

/**
 * Log chunks a restore reads at once. They are small (one group commit's records), so more go at
 * once than files: a follower far behind reads at the object store's pace, not a round trip's
 * (measured under the failover trials' load: about 45 ms a GET, 175 chunks/s at 8 at once).
 */
export const CHUNK_CONCURRENCY = 32;

/** Objects above this size move in ranges of it (one stream is slower than the disk). */
export const RANGE_BYTES = 16 << 20;

/**
 * Runs `fn` over `items`, at most `limit` at a time. After a failure no new item starts, and the
 * failure is thrown once those running have settled: nothing is left writing (a retry of the same
 * files would race it).
 */
export async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (!failed && next < items.length) {
        try {
          await fn(items[next++]);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    }),
  );
  const failure = workers.find((w) => w.status === 'rejected');
  if (failure) throw failure.reason;
}
