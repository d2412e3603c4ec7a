// Waiting in tests: on a state the test can observe, polled, under a bound; never a fixed time.

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `holds` until it is true; rejects naming `what` once `timeoutMs` has passed. */
export async function until(holds: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await holds())) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs}ms: ${what}`);
    await sleep(20);
  }
}
