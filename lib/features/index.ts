// Optional route families (memory, mcp, code and sql, cluster), each built in behind its build
// feature (spec, cross-cutting rule 6). None is built yet, so the registry is empty.
import type { Route } from '../http/route';
import type { StoreSlot } from '../api/slot';

/** One optional route family: its build feature's name and the routes it adds. */
export interface Feature {
  name: string;
  routes(slot: StoreSlot): Route[];
}

/**
 * The families built into this package; apiRoutes mounts their routes. A family's code lives in its
 * own folder here. A route of a family not built answers 404 like any unknown route, and /stats is
 * to report the listed names as `features` once the core writes that field.
 */
export const FEATURES: readonly Feature[] = [];
