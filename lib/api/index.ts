// Every route of the service: the route table's core routes (most answered by the Store method of
// their name), plus the optional families built in (../features); the web console's static files
// (../http/console) call no Store method at all.
import type { Registry } from 'prom-client';
import { FEATURES } from '../features';
import { consoleRoutes } from '../http/console';
import type { Relay } from '../http/relay';
import type { Route } from '../http/route';
import { faultRoutes } from './faults';
import { clusterRoute } from './cluster';
import { openApiRoute } from './openapi';
import { probeRoutes } from './probes';
import { QueryAccounting } from '../route_kit/query_accounting';
import { type StoreMethodRoute, storeMethodRoute } from '../route_kit/table_route';
import { recordsRoute } from './records';
import { readRoutes } from './search';
import { type LibraryRoutes, routeEntries } from '../contract/routes';
import type { StoreSlot } from '../route_kit/slot';

export { OneStore, type StoreSlot } from '../route_kit/slot';
export { storeErrorStatus } from '../route_kit/store_route';

export interface ApiOptions {
  registry: Registry;
  slowQueryMs: number | null;
  /** Mount the fault-injection routes the tests use (TESSERA_TEST_FAULTS=1). */
  testFaults: boolean;
  /** `--read-only` (the hooks refuse write routes; families answering writes otherwise need to know). */
  readOnly: boolean;
  /** `--console-without-token`: the console's files are served like a probe. */
  consoleWithoutToken: boolean;
  /** The routes as a way of serving serves them (Serving.routes: the tenant prefix, durable writes). */
  served?: (routes: Route[]) => Route[];
  /** What /metrics answers (default: the registry's exposition); several HTTP threads merge theirs. */
  scrape?: () => Promise<string>;
  /** Register the store's gauges (default true): one HTTP thread of a server has them. */
  storeMetrics?: boolean;
  /** With several HTTP threads: hands a request to the thread owning its state (an MCP session). */
  relay?: Relay;
}

/** The core routes answered by the Store method of their name: every `call` route of the table, /stats and /refresh. */
const STORE_CALLS: readonly StoreMethodRoute[] = [
  ...routeEntries().flatMap(([id, spec]) => (spec.library === 'call' ? [id as LibraryRoutes<'call'>] : [])),
  'stats',
  'refresh',
];

/**
 * Every route of the service, one module per route family, as the way of serving serves them
 * (`served`). /openapi.json describes the routes as served.
 */
export function apiRoutes(slot: StoreSlot, options: ApiOptions): Route[] {
  const { registry, slowQueryMs, testFaults, readOnly, consoleWithoutToken, served: serve } = options;
  const queries = new QueryAccounting({ registry, slowQueryMs });
  let served: Route[] = [];
  const routes: Route[] = [
    ...probeRoutes(slot, registry, options.scrape, options.storeMetrics),
    ...consoleRoutes(consoleWithoutToken),
    clusterRoute(slot),
    ...STORE_CALLS.map((id) => storeMethodRoute(slot, id)),
    recordsRoute(slot),
    ...readRoutes(slot, queries),
    ...FEATURES.flatMap((feature) => feature.routes?.(slot, { readOnly, queries, relay: options.relay }) ?? []),
    ...(testFaults ? faultRoutes(slot) : []),
    openApiRoute(() => served),
  ];
  served = serve ? serve(routes) : routes;
  return served;
}

export { describeApi } from './openapi';
