// GET /openapi.json (issue 16): an OpenAPI 3.1 description of every route, built from the route
// table and the schemas the routes check their bodies with. Every answer the HTTP tests receive
// through `call` is checked against it (./contract.ts); these tests check the description itself.
import { Validator } from '@seriousme/openapi-schema-validator';
import test from 'ava';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonSchema } from '../../lib/http/schema';
import { contractViolation, pointer } from './contract';
import { type Server, call, packageBuiltWith, startServer, tempDir } from './helpers';

let server: Server;
let document: JsonSchema;
test.before(async () => {
  server = await startServer();
  document = (await call(server, 'GET', '/openapi.json')).json;
});
test.after.always(() => server?.stop());

type Operations = Record<string, Record<string, { operationId: string; security?: unknown[]; requestBody?: unknown; responses: Record<string, unknown> }>>;
const paths = (doc: JsonSchema) => doc.paths as Operations;
const operations = (doc: JsonSchema) =>
  Object.entries(paths(doc)).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })));

/** Every route of the spec's route table, /mcp by each method the MCP transport serves. */
const SPEC_ROUTES = [
  'GET /health',
  'GET /ready',
  'GET /stats',
  'GET /cluster',
  'GET /versions',
  'GET /metrics',
  'GET /collections',
  'POST /collections/{name}',
  'DELETE /collections/{name}',
  'GET /collections/{name}/meta',
  'PUT /collections/{name}/meta',
  'POST /collections/{name}/fts-schema',
  'POST /collections/{name}/filter-index',
  'POST /collections/{name}/vector-names',
  'GET /aliases',
  'PUT /aliases/{name}',
  'DELETE /aliases/{name}',
  'POST /collections/{name}/upsert',
  'POST /collections/{name}/delete',
  'GET /collections/{name}/records',
  'POST /search',
  'POST /search/similar',
  'POST /search/batch',
  'POST /text-search',
  'POST /hybrid-search',
  'POST /suggest',
  'POST /code-search',
  'POST /list',
  'POST /aggregate',
  'POST /query',
  'POST /flush',
  'POST /compact',
  'POST /refresh',
  'POST /collections/{name}/remember',
  'POST /collections/{name}/recall',
  'POST /mcp',
  'GET /mcp',
  'DELETE /mcp',
];

test('GET /openapi.json answers an OpenAPI 3.1 document that a real validator accepts', async (t) => {
  const r = await call(server, 'GET', '/openapi.json');
  t.is(r.status, 200);
  t.is(r.headers.get('content-type'), 'application/json');
  const validator = new Validator();
  t.deepEqual(await validator.validate(r.json), { valid: true });
  t.is(validator.version, '3.1');
});

test("every route of the spec's route table is described, /openapi.json itself too, each with its own operationId", (t) => {
  const described = operations(document).map((o) => o.route);
  for (const route of [...SPEC_ROUTES, 'GET /openapi.json']) t.true(described.includes(route), route);
  const ids = operations(document).map((o) => o.op.operationId);
  t.is(new Set(ids).size, ids.length);
});

test('a server describes only the routes it mounts: GET /namespaces on a --namespaced root, on no other', async (t) => {
  t.false(operations(document).some((o) => o.route === 'GET /namespaces'));
  t.is((await call(server, 'GET', '/namespaces')).status, 404);
  const root = await startServer(['--namespaced', '--data', tempDir()]);
  t.teardown(() => root.stop());
  const described = operations((await call(root, 'GET', '/openapi.json')).json).map((o) => o.route);
  t.true(described.includes('GET /namespaces'));
  t.is((await call(root, 'GET', '/namespaces')).status, 200);
});

test('every schema of the document compiles as strict JSON Schema 2020-12, every $ref resolving', (t) => {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'security', 'paths', 'components']);
  ajv.addSchema({ ...document, $id: 'doc' });
  const schemas: string[] = Object.keys((document.components as { schemas: JsonSchema }).schemas).map((name) => `/components/schemas/${name}`);
  const media = (at: string, holder: unknown) => {
    for (const type of Object.keys((holder as { content?: object })?.content ?? {})) schemas.push(`${at}/${pointer('content', type, 'schema')}`);
  };
  for (const [status, answer] of Object.entries((document.components as { responses: JsonSchema }).responses)) media(`/components/responses/${status}`, answer);
  for (const [path, ops] of Object.entries(paths(document))) {
    for (const [method, op] of Object.entries(ops)) {
      const at = `/${pointer('paths', path, method)}`;
      media(`${at}/requestBody`, op.requestBody);
      for (const [status, answer] of Object.entries(op.responses)) media(`${at}/responses/${status}`, answer);
    }
  }
  for (const at of schemas) t.notThrows(() => ajv.compile({ $ref: `doc#${at}` }), at);
  t.true(schemas.length > 100);
});

test('the probes are described as taking no token, and the web console too with --console-without-token; every other route takes the bearer token when one is configured', async (t) => {
  const consoleServer = await startServer(['--console-without-token']);
  t.teardown(() => consoleServer.stop());
  const consoleDocument: JsonSchema = (await call(consoleServer, 'GET', '/openapi.json')).json;
  const probes = ['GET /health', 'GET /ready', 'GET /metrics'];
  const consolePaths = ['GET /console', 'GET /console/{file}'];
  for (const [doc, tokenless] of [
    [document, probes],
    [consoleDocument, [...probes, ...consolePaths]],
  ] as const) {
    for (const { route, op } of operations(doc)) t.is(op.security?.length === 0, tokenless.includes(route), route);
    t.deepEqual(doc.security, [{ bearer: [] }, {}]);
  }
});

test('with --token, /openapi.json needs the token like the other non-probe routes', async (t) => {
  const guarded = await startServer(['--token', 's3cret']);
  t.teardown(() => guarded.stop());
  t.is((await call(guarded, 'GET', '/openapi.json')).status, 401);
  t.is((await call(guarded, 'GET', '/openapi.json', undefined, { authorization: 'Bearer s3cret' })).status, 200);
});

test('a JSON body is checked before its handler by the schema the description publishes: what the route refuses, the description refuses', async (t) => {
  const cases: [string, string, unknown, number][] = [
    ['POST', '/query', { sql: 'SELECT * FROM c' }, 200],
    ['POST', '/query', { sql: 'SELECT * FROM c', compile_only: true }, 200],
    ['POST', '/query', { sql: 'SELECT * FROM c', compile_only: 'yes' }, 400],
    ['POST', '/query', { sql: 'SELECT * FROM c', limit: 1 }, 400],
    ['POST', '/query', { compile_only: true }, 400],
    ['POST', '/collections/c/vector-names', { names: ['title'] }, 200],
    ['POST', '/collections/c/vector-names', { names: 'title' }, 400],
    ['PUT', '/collections/c/meta', { owner: 'ann' }, 200],
    ['PUT', '/collections/c/meta', { owner: 7 }, 400],
    ['PUT', '/aliases/a', { target: 'c' }, 200],
    ['PUT', '/aliases/a', { target: 'c', also: 'd' }, 400],
  ];
  // The document's own schemas, their $refs resolved inside it.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'security', 'paths', 'components']);
  ajv.addSchema({ ...document, $id: 'doc' });
  t.is((await call(server, 'POST', '/collections/c')).status, 200);
  for (const [method, path, body, status] of cases) {
    const r = await call(server, method, path, body);
    t.is(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`);
    const template = path.replace(/^\/(collections|aliases)\/[^/]+/, '/$1/{name}');
    const schema = (paths(document)[template][method.toLowerCase()].requestBody as { content: { 'application/json': { schema: JsonSchema } } }).content[
      'application/json'
    ].schema;
    const published = typeof schema.$ref === 'string' ? { $ref: `doc${schema.$ref}` } : schema;
    t.is(ajv.validate(published, body), status === 200, `${method} ${path} ${JSON.stringify(body)}`);
  }
});

test('a package built without features describes no memory, MCP or code route', async (t) => {
  const bare = await startServer([], {}, { cli: packageBuiltWith('rerank') });
  t.teardown(() => bare.stop());
  const described = operations((await call(bare, 'GET', '/openapi.json')).json).map((o) => o.route);
  for (const route of ['POST /collections/{name}/remember', 'POST /collections/{name}/recall', 'POST /mcp', 'POST /code-search'])
    t.false(described.includes(route), route);
  t.true(described.includes('POST /search'));
});

test('the contract check refuses an unlisted status, a body off its schema, and an accepted request the description does not allow', (t) => {
  const hits = '[{"collection":"c","id":"a","score":1,"attrs":{"n":{"Int":9007199254740993}}}]';
  t.is(contractViolation('POST', '/search', '{"query":[1,0,0,0]}', 200, 'application/json', hits), null);
  t.regex(contractViolation('POST', '/search', '{"query":[1,0,0,0]}', 418, 'application/json', '{}') ?? '', /418, a status the description does not list/);
  t.regex(contractViolation('POST', '/search', '{"query":[1,0,0,0]}', 200, 'application/json', '[{"id":"a"}]') ?? '', /body the description does not allow/);
  t.regex(contractViolation('GET', '/health', undefined, 200, 'application/json', '"ok"') ?? '', /not one of text\/plain/);
  t.regex(
    contractViolation('POST', '/search', '{"query":[1,0,0,0],"topk":3}', 200, 'application/json', '[]') ?? '',
    /accepted a request body the description does not allow/,
  );
  t.is(contractViolation('GET', '/no/such/route', undefined, 404, 'application/json', '{"error":"no route"}'), null, 'an unknown route is not described');
});

test("/stats' description states a new store's index defaults, as the server answers them", async (t) => {
  const stats = (document.components as { schemas: Record<string, { properties: Record<string, { description?: string }> }> }).schemas.Stats.properties;
  t.regex(stats.ann.description ?? '', /new store on disk gets Hnsw/);
  t.regex(stats.quantization.description ?? '', /new store on disk gets Int8 with rescore 4/);
  const served = (await call(server, 'GET', '/stats')).json;
  t.like(served, { ann: { kind: 'Hnsw', m: 16, ef_construction: 200, ef_search: 64 }, quantization: { kind: 'Int8', rescore: 4 } });
});
