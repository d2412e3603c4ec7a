// Cancellation: a cheap handle that cancels the core calls it is passed to. Its own module, so
// that types.ts can name it without importing the Store (or lib/index).
import { native, type NativeCancelToken } from '../native';

/**
 * Cancels the core calls it is passed to (as `{cancellation}`), like an AbortSignal but without
 * its allocation and listener cost, which shows on a server answering tens of thousands of
 * requests a second.
 */
export class Cancellation {
  readonly token: NativeCancelToken = new native.CancelToken();
  private done = false;
  private controller: AbortController | null = null;
  get cancelled(): boolean {
    return this.done;
  }
  /** An AbortSignal that fires with cancel(), for work outside the core (a provider's HTTP call); made on first use. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.done) this.controller.abort();
    return this.controller.signal;
  }
  cancel(): void {
    this.done = true;
    this.token.cancel();
    this.controller?.abort();
  }
}

/**
 * Hands out Cancellations and takes back those whose calls finished uncancelled, so a server does
 * not make (and finalize) a native token per request.
 */
export class CancellationPool {
  private readonly free: Cancellation[] = [];

  constructor(private readonly keep = 1024) {}

  take(): Cancellation {
    return this.free.pop() ?? new Cancellation();
  }

  /** Only once every call `c` was passed to has settled; a cancelled one is dropped. */
  give(c: Cancellation): void {
    if (c.cancelled || this.free.length >= this.keep) return;
    c.token.clearPlanSummary();
    this.free.push(c);
  }
}

/** What every Store call takes: an AbortSignal, or a Cancellation (cheaper, for hot paths). */
export interface CallOptions {
  signal?: AbortSignal;
  cancellation?: Cancellation;
}
