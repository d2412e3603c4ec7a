// Every route of the service: one module per route family, plus the optional families built in
// (../features). Each route validates its input, calls one Store method and shapes the JSON; the
// web console's static files (../http/console) call no Store method at all.
import type { Registry } from 'prom-client';
import { FEATURES } from '../features';
import { consoleRoutes } from '../http/console';
import type { Route } from '../http/route';
import { aliasRoutes } from './aliases';
import { collectionRoutes } from './collections';
import { faultRoutes } from './faults';
import { introspectionRoutes } from './introspection';
import { maintenanceRoutes } from './maintenance';
import { metadataRoutes } from './metadata';
import { openApiRoute } from './openapi';
import { probeRoutes } from './probes';
import { recordRoutes } from './records';
import { QueryAccounting } from '../route_kit/query_accounting';
import { searchRoutes } from './search';
import type { StoreSlot } from '../route_kit/slot';
import { Namespaces, namespacedRoutes } from './namespaces';

export { OneStore, type StoreSlot } from '../route_kit/slot';
export { Namespaces, namespacedRoutes } from './namespaces';
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
}

/**
 * Every route of the service, one module per route family; a --namespaced server's store routes
 * under /ns/{namespace}. /openapi.json describes the routes as served.
 */
export function apiRoutes(slot: StoreSlot, { registry, slowQueryMs, testFaults, readOnly, consoleWithoutToken }: ApiOptions): Route[] {
  const queries = new QueryAccounting({ registry, slowQueryMs });
  let served: Route[] = [];
  const routes: Route[] = [
    ...probeRoutes(slot, registry),
    ...consoleRoutes(consoleWithoutToken),
    ...introspectionRoutes(slot),
    ...collectionRoutes(slot),
    ...aliasRoutes(slot),
    ...recordRoutes(slot),
    ...searchRoutes(slot, queries),
    ...metadataRoutes(slot),
    ...maintenanceRoutes(slot),
    ...FEATURES.flatMap((feature) => feature.routes(slot, { readOnly, queries })),
    ...(testFaults ? faultRoutes(slot) : []),
    openApiRoute(() => served),
  ];
  served = slot instanceof Namespaces ? namespacedRoutes(routes, slot) : routes;
  return served;
}

export { describeApi } from './openapi';
