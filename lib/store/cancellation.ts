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
  get cancelled(): boolean {
    return this.done;
  }
  cancel(): void {
    this.done = true;
    this.token.cancel();
  }
}
