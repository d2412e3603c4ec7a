// Optional route families, each built in behind its build feature (spec, cross-cutting rule 6).
// A family's code lives in its own folder here; a route of a family not built answers 404 like
// any unknown route.
import './extensions';
import { hasFeature } from './built';
import { codeRoutes } from './code/routes';
import type { Feature } from './feature';
import { mcpRoutes } from './mcp/routes';
import { memoryRoutes } from './memory/routes';

export type { Feature, FeatureOptions } from './feature';

const FAMILIES: readonly Feature[] = [
  { name: 'memory', routes: memoryRoutes },
  { name: 'mcp', routes: mcpRoutes },
  { name: 'code', routes: codeRoutes },
];

/** The families built into this package; apiRoutes mounts their routes. */
export const FEATURES: readonly Feature[] = FAMILIES.filter((f) => hasFeature(f.name));
