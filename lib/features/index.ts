// The route families beside the core routes, each behind its build feature where it has one (spec,
// cross-cutting rule 6). A family's code lives in its own folder here; a route of a family not
// built answers 404 like any unknown route.
import './extensions';
import { hasFeature } from './built';
import { codeRoutes } from './code/routes';
import type { Feature } from './feature';
import { mcpRoutes } from './mcp/routes';
import { memoryRoutes } from './memory/routes';
import { sqlRoutes } from './sql/routes';

export type { Feature, FeatureOptions } from './feature';

const FAMILIES: readonly Feature[] = [
  { name: 'memory', enabled: hasFeature('memory'), routes: memoryRoutes },
  { name: 'mcp', enabled: hasFeature('mcp'), routes: mcpRoutes },
  { name: 'code', enabled: hasFeature('code'), routes: codeRoutes },
  { name: 'sql', enabled: true, routes: (slot, { queries }) => sqlRoutes(slot, queries) },
];

/** The families this package has; apiRoutes mounts their routes. */
export const FEATURES: readonly Feature[] = FAMILIES.filter((f) => f.enabled);
