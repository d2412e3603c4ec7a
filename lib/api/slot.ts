// StoreSlot: holds the Store once it is open, since the server listens (and answers probes)
// while a large store is still opening.
import { HttpError } from '../http/errors';
import type { Store } from '../store/store';

/** Holds the store once it is open: the server listens (and answers probes) before that. */
export class StoreSlot {
  private store: Store | null = null;

  open(store: Store): void {
    this.store = store;
  }

  /** The store, or null while it is still opening. Never waits. */
  get current(): Store | null {
    return this.store;
  }

  /** The store, or a 503 while it is still opening. */
  get(): Store {
    if (this.store === null) throw new HttpError(503, 'store is not open yet; retry once GET /ready answers 200');
    return this.store;
  }
}
