// Where a route meets the Store: call options tied to the request's cancellation, and a route
// that answers the JSON of one Store call.
import { json } from '../http/reply';
import type { Request } from '../http/request';
import { type Route, type RouteHead, route } from '../http/route';
import type { Store } from '../store/store';
import type { CallOptions } from '../types';
import type { StoreSlot } from './slot';

/** Call options that let the HTTP layer cancel the core's work on timeout or client abort. */
export const callOptions = (req: Request): CallOptions => ({ cancellation: req.cancellation });

interface StoreCall<B> extends RouteHead<B> {
  call(store: Store, req: Request<B>, options: CallOptions): Promise<unknown>;
}

/** A route whose answer is the JSON of one Store call. */
export const storeRoute = <B = undefined>(slot: StoreSlot, { call, ...def }: StoreCall<B>): Route =>
  route<B>({ ...def, handle: async (req) => json(await call(slot.get(), req, callOptions(req))) });
