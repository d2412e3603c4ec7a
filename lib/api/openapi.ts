// GET /openapi.json: the OpenAPI 3.1 description of the routes this server mounts, built from the
// route table itself (each route's description and the schemas its body is checked with), so a
// route cannot be served undescribed.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { openApiDocument } from '../http/openapi';
import type { Route } from '../http/route';
import { tableRoute } from '../route_kit/table_route';
import type { JsonSchema } from '../http/schema';
import { COMPONENTS } from '../contract/schemas';

// dist/lib/api/ -> the package root.
const { version } = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { version: string };

const INFO = {
  title: 'Tessera',
  version,
  description:
    'Collection-based vector and full-text record store. Int and DateTime values are signed 64-bit integers: read them with a parser that keeps integers exact (the typed client `tessera/client` answers them as bigint).',
};

/** The description of `routes`. */
export const describeApi = (routes: readonly Route[]): JsonSchema => openApiDocument(routes, INFO, COMPONENTS);

/** GET /openapi.json, describing `routes()` (this route among them); the document is built once, on first request. */
export function openApiRoute(routes: () => readonly Route[]): Route {
  let document: string | null = null;
  return tableRoute('openApi', () => {
    document ??= JSON.stringify(describeApi(routes()));
    return { status: 200, contentType: 'application/json', body: document };
  });
}
