import type { Store } from '../index';
import type { CallOptions } from '../types';
import { HttpError } from '../http/errors';
import { json } from '../http/reply';
import type { Request } from '../http/request';
import { type Route, type RouteHead, route } from '../http/route';

/** Holds the store once it is open: the server listens (and answers probes) before that. */
export class StoreSlot {
  private store: Store | null = null;
  private openedAt = 0;

  open(store: Store): void {
    this.store = store;
    this.openedAt = Date.now();
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

  secondsSinceOpen(): number {
    return Math.floor((Date.now() - this.openedAt) / 1000);
  }
}

/** Call options that let the HTTP layer cancel the core's work on timeout or client abort. */
export const callOptions = (req: Request): CallOptions => ({ cancellation: req.cancellation });

interface StoreCall<B> extends RouteHead<B> {
  call(store: Store, req: Request<B>, options: CallOptions): Promise<unknown>;
}

/** A route whose answer is the JSON of one Store call. */
export const storeRoute = <B = undefined>(slot: StoreSlot, { call, ...def }: StoreCall<B>): Route =>
  route<B>({ ...def, handle: async (req) => json(await call(slot.get(), req, callOptions(req))) });
