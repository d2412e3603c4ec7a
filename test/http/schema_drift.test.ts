// The request schemas /openapi.json publishes against the fields each body's parser accepts: a
// body the core reads itself names what it allows when it refuses an unknown field, and that list
// must be exactly the schema's properties, so the two cannot drift apart. (A body the library
// checks, a feature's or a small JSON one, is checked by the published schema itself, and words
// its refusal the same way.)
import test from 'ava';
import type { JsonSchema } from '../../lib/http/schema';
import { call, startServer } from './helpers';

type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  components: { schemas: Record<string, JsonSchema> };
};

/** Every property a body may carry: $refs followed, the branches of allOf, anyOf and oneOf joined. */
function propertiesOf(schema: JsonSchema, doc: Doc): Set<string> {
  const names = new Set<string>();
  const visit = (s: JsonSchema): void => {
    if (typeof s.$ref === 'string') {
      visit(doc.components.schemas[s.$ref.split('/').pop() as string]);
      return;
    }
    for (const name of Object.keys((s.properties as object | undefined) ?? {})) names.add(name);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) for (const branch of (s[key] as JsonSchema[] | undefined) ?? []) visit(branch);
  };
  visit(schema);
  return names;
}

test("each parsed body's published schema lists exactly the fields its parser accepts", async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const doc = (await call(server, 'GET', '/openapi.json')).json as Doc;
  let checked = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    const schema = ops.post?.requestBody?.content['application/json']?.schema;
    if (!schema) continue;
    const answer = await call(server, 'POST', path.replace(/\{\w+\}/g, 'c'), { zz_probe: 1 });
    const listed = /unknown field 'zz_probe'[^;]*; (?:allowed|accepted): (.+)$/.exec(answer.json?.error ?? '');
    if (!listed) continue; // a route that takes no JSON object (MCP's JSON-RPC messages)
    checked++;
    const parsed = new Set(listed[1].split(', '));
    const published = propertiesOf(schema, doc);
    t.deepEqual([...published].sort(), [...parsed].sort(), `${path}: the published schema against the parser's fields`);
  }
  t.true(checked >= 15, `${checked} parsed bodies checked`);
});
