// Namespaced mode (--namespaced): every store route moves under /ns/{namespace}, whose tenant store
// is opened on first use and held until the response is sent; the same route without the prefix
// answers 400 naming the fix. Probes and the routes that answer for the whole process
// (RouteHead.global) stay where they are.
import { HttpError } from '../../http/errors';
import type { Hook } from '../../http/hooks';
import type { Request } from '../../http/request';
import type { Route } from '../../http/route';
import type { Store } from '../../store/store';
import { checkNamespace } from '../../store/tenants';
import type { Tenants } from './remote_tenants';
import type { ClusterStatus, NamespaceEntry } from '../../types';
import { forRequest, type StoreSlot } from '../../route_kit/slot';

const PREFIX = '/ns/{namespace}';

/** The tenant store of each request, held from its route's start until its response is sent. */
export class Namespaces implements StoreSlot, Hook {
  /** Requests holding (or acquiring) their tenant, with its name once acquired. */
  private readonly holding = new Map<Request, Promise<string>>();

  constructor(private readonly tenants: Tenants) {}

  /** Opens (or finds) the request's tenant store and holds it open until the response is sent. */
  async enter(req: Request): Promise<void> {
    const name = req.param('namespace');
    const acquired = this.tenants.acquire(name).then(() => name);
    this.holding.set(req, acquired);
    await acquired;
  }

  /** A path under /ns/ that no route matched because its namespace is not a name (empty, say) is that name's 400, not a 404. */
  onRequest(req: Request, route: Route | null): void {
    if (route === null && req.path.startsWith('/ns/')) checkNamespace(req.path.split('/')[2]);
  }

  onResponse(req: Request): void {
    this.leave(req);
  }

  /** Ends the hold `enter` began. */
  leave(req: Request): void {
    const acquired = this.holding.get(req);
    if (!acquired) return;
    this.holding.delete(req);
    // A request answered while its tenant was still opening (a deadline, a client gone) releases
    // it once the open is over.
    acquired.then(
      (name) => this.tenants.release(name),
      () => undefined,
    );
  }

  get(req: Request): Store {
    return forRequest(req, this.tenants.held(req.param('namespace')));
  }

  async using<T>(namespace: string, use: (store: Store) => Promise<T>): Promise<T> {
    const store = await this.tenants.acquire(namespace);
    try {
      return await use(store);
    } finally {
      this.tenants.release(namespace);
    }
  }

  status(req: Request): ClusterStatus {
    return this.get(req).cluster();
  }

  scope(req: Request): string {
    return req.param('namespace');
  }

  openStores(): Store[] {
    return this.tenants.openStores();
  }

  /** The process serves as soon as it listens; each tenant's state is in GET /namespaces. */
  unready(): null {
    return null;
  }

  poisoned(): null {
    return null;
  }

  namespaces(): NamespaceEntry[] | Promise<NamespaceEntry[]> {
    return this.tenants.entries();
  }
}

const missingPrefix = (route: Route) =>
  new HttpError(
    400,
    `this server is --namespaced: prefix the path with /ns/{namespace}, e.g. /ns/acme${route.path}; only /health, /ready, /metrics and /namespaces take no prefix`,
  );

/**
 * The routes of a --namespaced server: each store route under /ns/{namespace} (the tenant open
 * before its handler runs), beside an unprefixed twin that answers 400 before reading any body.
 */
export function namespacedRoutes(routes: Route[], namespaces: Namespaces): Route[] {
  return routes.flatMap((route): Route[] => {
    if (route.access === 'probe' || route.global) return [route];
    const prefixed: Route = {
      ...route,
      path: PREFIX + route.path,
      handle: async (req) => {
        await namespaces.enter(req);
        return route.handle(req);
      },
    };
    const unprefixed: Route = {
      method: route.method,
      path: route.path,
      access: 'read',
      doc: {
        operationId: `${route.doc.operationId}WithoutNamespace`,
        summary: `Refused on a --namespaced server: send it as ${PREFIX}${route.path}`,
        responses: {},
        errors: [400],
      },
      handle: () => {
        throw missingPrefix(route);
      },
    };
    return [prefixed, unprefixed];
  });
}
