// Optional route families, each built in behind its build feature (spec, cross-cutting rule 6).
// A family's code lives in its own folder here; a route of a family not built answers 404 like
// any unknown route.
import type { StoreSlot } from '../api/slot';
import type { Route } from '../http/route';
import { type FeatureName, hasFeature } from './built';
import { mcpRoutes } from './mcp/routes';
import { codeRoutes } from './code/routes';
import { memoryRoutes } from './memory/routes';

/** What the server tells the families about itself. */
export interface FeatureOptions {
  /** `--read-only`: a family answering writes outside the route table (MCP tools) refuses them. */
  readOnly: boolean;
}

/** One optional route family: its build feature's name and the routes it adds. */
export interface Feature {
  name: FeatureName;
  routes(slot: StoreSlot, options: FeatureOptions): Route[];
}

const FAMILIES: readonly Feature[] = [
  { name: 'memory', routes: memoryRoutes },
  { name: 'mcp', routes: mcpRoutes },
  { name: 'code', routes: codeRoutes },
];

/** The families built into this package; apiRoutes mounts their routes. */
export const FEATURES: readonly Feature[] = FAMILIES.filter((f) => hasFeature(f.name));
