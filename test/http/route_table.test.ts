// The route table (lib/contract/routes.ts) is what is served, called and described: each route a
// server mounts is its entry (method, path, access), each entry of a built family is mounted, and
// the library and the client have its method.
import test from 'ava';
import { ROUTES, routeEntries } from '../../lib/contract/routes';
import { COMPONENTS } from '../../lib/contract/schemas';
import { bodyProblem } from '../../lib/contract/validate';
import { TesseraClient } from '../../lib/client';
import { Store } from '../../lib/index';
import { apiDescription } from './contract';

type Operation = { operationId: string; security?: unknown[] };
const described = (): { id: string; method: string; path: string; probe: boolean }[] =>
  Object.entries(apiDescription().paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ id: op.operationId, method: method.toUpperCase(), path, probe: op.security !== undefined })),
  );
/** Routes outside the spec's table: the web console's files and the tests' fault injection. */
const outsideTheTable = (id: string) => id.startsWith('console') || id.startsWith('injectFault_');

test('every route the server mounts is its table entry: operation id, method, path, and whether it is a probe', (t) => {
  for (const { id, method, path, probe } of described()) {
    if (outsideTheTable(id)) continue;
    const spec = (ROUTES as Record<string, { method: string; path: string; access: string }>)[id];
    t.truthy(spec, `${method} ${path} (${id}) is not in the route table`);
    t.deepEqual([spec.method, spec.path, spec.access === 'probe'], [method, path, probe], id);
  }
});

test('every table entry is mounted (GET /namespaces only on a --namespaced root), and only once', (t) => {
  const ids = described().map((d) => d.id);
  t.deepEqual(
    routeEntries()
      .map(([id]) => id)
      .filter((id) => id !== 'namespaces' && !ids.includes(id)),
    [],
  );
  t.is(new Set(ids).size, ids.length);
});

test('the library has the method of every table entry it maps to, and a read its bytes form', (t) => {
  for (const [id, spec] of routeEntries()) {
    if (spec.library === null) continue;
    t.is(typeof (Store.prototype as unknown as Record<string, unknown>)[id], 'function', `Store.${id}`);
    if (spec.library === 'read') t.is(typeof (Store.prototype as unknown as Record<string, unknown>)[`${id}Json`], 'function', `Store.${id}Json`);
  }
});

test('the client has the method of every table entry but those an MCP client speaks', (t) => {
  for (const [id, spec] of routeEntries())
    t.is(typeof (TesseraClient.prototype as unknown as Record<string, unknown>)[id], spec.client === false ? 'undefined' : 'function', id);
});

test('a body is refused by its published schema with one message naming the field: an unknown field first, else the first problem', (t) => {
  t.is(bodyProblem('RecallRequest', { query: 'q', top_k: 3 }), null);
  t.is(bodyProblem('RecallRequest', { query: 'q', top_k: null }), null, 'null reads as the field left out');
  const fields = Object.keys(COMPONENTS.RecallRequest.properties as object);
  t.is(bodyProblem('RecallRequest', { query: 'q', top_k: 'x', colour: 1 }), `unknown field 'colour'; allowed: ${fields.join(', ')}`);
  t.is(bodyProblem('RecallRequest', { query: 'q', top_k: -1 }), 'top_k must be >= 0, got -1');
  t.is(bodyProblem('RecallRequest', { query: 'q', rollup: { per_parent: 'x' } }), 'rollup.per_parent must be a whole number, got "x"');
  t.is(bodyProblem('RecallRequest', {}), 'query is required');
  const optional = fields.filter((f) => f !== 'query').map((f) => `"${f}"`);
  t.is(bodyProblem('RecallRequest', []), `the body must be an object with "query" and optionally ${optional.join(', ')}, got []`);
  t.is(bodyProblem('Rerank', { overscan: 0 }, 'rerank'), 'rerank.overscan must be >= 1, got 0');
  t.is(bodyProblem('RememberRequest', { id: 'a', text: 't', ttl_seconds: Number.NaN }), 'ttl_seconds must be a finite number, got NaN');
  t.is(bodyProblem('RememberRequest', { id: 'a', text: 't', attrs: { n: { Int: 2n ** 63n - 1n } } }), null, 'an Int checked as the digits it travels as');
  const deep = JSON.parse(`{"k": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  t.is(bodyProblem('Metadata', deep), 'k must be a string, got an array', 'a value nested past the call stack is named by its kind');
});
