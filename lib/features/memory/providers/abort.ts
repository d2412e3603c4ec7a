// AbortSignal plumbing shared by the transport and the batched calls.

/** A controller that aborts, with the same reason, when parent does; detach() once it is no longer needed. */
export function follow(parent?: AbortSignal): { controller: AbortController; detach: () => void } {
  const controller = new AbortController();
  if (!parent) return { controller, detach: () => {} };
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return { controller, detach: () => parent.removeEventListener('abort', onAbort) };
}

/** Waits ms, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
