// Optional route families (memory, mcp, code and sql, cluster), each compiled in behind its build
// feature (spec, cross-cutting rule 6); a route whose feature is not built answers 404 like any
// unknown route. A family lives in its own folder here and is listed in FEATURES, which apiRoutes
// mounts; /stats is to report the listed names as `features` once the core writes that field.
// No family is built yet, so the list is empty.
import type { Route } from '../http/route';
import type { StoreSlot } from '../api/slot';

/** One optional route family: its build feature's name and the routes it adds. */
export interface Feature {
  name: string;
  routes(slot: StoreSlot): Route[];
}

export const FEATURES: readonly Feature[] = [];
