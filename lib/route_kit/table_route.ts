// A route of the route table (lib/contract/routes.ts) as the server mounts it: method, path, access
// and description from its entry; a `json` body checked by the schema the entry publishes before
// the handler runs; and a handler, by default the Store method of its operation id.
import { type LibraryRoutes, type OperationId, paramNames, ROUTES, type RouteSpec } from '../contract/routes';
import { bodyProblem } from '../contract/validate';
import { HttpError } from '../http/errors';
import { json } from '../http/reply';
import { type Route, type RouteHead, route } from '../http/route';
import type { Schema } from '../http/schema';
import type { CallOptions } from '../store/cancellation';
import type { StoreSlot } from './slot';
import { cancellable } from './store_route';

/** The name of the component a `$ref` points to. */
const componentOf = (ref: unknown): string => String((ref as { $ref?: unknown } | undefined)?.$ref).replace('#/components/schemas/', '');

/**
 * The check of route `id`'s body by the very schema its description publishes: a `json` body's,
 * before the handler runs; a raw body's, for a route that reads some bodies itself (/query).
 */
export function bodySchema<B>(id: OperationId): Schema<B> {
  const spec: RouteSpec = ROUTES[id];
  const component = componentOf(spec.request);
  const check = (value: unknown): B => {
    const problem = bodyProblem(component, value);
    if (problem !== null) throw new HttpError(400, problem);
    return value as B;
  };
  return Object.assign(check, { json: spec.request ?? {} });
}

/** What a route adds to its table entry beside its handler: when its body makes it a write, the headers it reads. */
export type RouteExtras<B> = Pick<RouteHead<B>, 'writeWhen' | 'writeTimeoutWhen' | 'headers'>;

/** The route of table entry `id`, answered by `handle`. */
export function tableRoute<B = unknown>(id: OperationId, handle: Route<B>['handle'], extras: RouteExtras<B> = {}): Route {
  const spec: RouteSpec = ROUTES[id];
  return route<B>({
    method: spec.method,
    path: spec.path,
    access: spec.access,
    ...(spec.global ? { global: true as const } : {}),
    ...(spec.body === 'raw' ? { body: 'raw' as const } : spec.body === 'json' ? { body: bodySchema<B>(id) } : {}),
    doc: {
      operationId: id,
      summary: spec.summary,
      ...(spec.request ? { request: spec.request } : {}),
      ...(spec.requestOptional ? { requestOptional: true } : {}),
      responses: spec.responses,
      ...(spec.errors ? { errors: spec.errors } : {}),
    },
    ...extras,
    handle,
  });
}

/** The routes answered by the Store method of their name: the table's `call` routes, and the `own` ones that take the same arguments. */
export type StoreMethodRoute = LibraryRoutes<'call'> | 'stats' | 'refresh' | 'remember' | 'codeSearch';

/** The route of `id` answering the JSON of its Store method, called with the path's parameters, the body's bytes and the request's cancellation. */
export function storeMethodRoute(slot: StoreSlot, id: StoreMethodRoute): Route {
  const spec: RouteSpec = ROUTES[id];
  const params = paramNames(spec.path);
  return tableRoute(id, async (req) => {
    const args: unknown[] = params.map((p) => req.param(p));
    if (spec.body !== undefined) args.push(req.bytes);
    const answer = await cancellable(req, (o: CallOptions) => {
      const store = slot.get(req);
      return (store[id] as unknown as (...a: unknown[]) => Promise<unknown>).call(store, ...args, o);
    });
    return json(answer);
  });
}
