// The compiled-script cache of /query (lib/features/sql/query.ts): a repeated script is not parsed
// again, texts that share the cache's sampled key are told apart by their whole text, and a key
// shared by more texts than a chain holds stops caching rather than slowing every lookup. A
// /query body remembered after it ran finds its statements by its bytes, confirmed on all of them.
import test from 'ava';
import { compileScript, knownBody, rememberBody } from '../../lib/features/sql/query';

const filterOf = (sql: string) => JSON.parse(compileScript(sql)[0].bytes.toString()).filter;

test('a repeated script answers the same compiled statements without parsing it again', (t) => {
  const sql = `SELECT * FROM cache_a WHERE n = ${Date.now()}`;
  t.is(compileScript(sql), compileScript(sql));
});

test('texts that differ only where the key does not sample compile to their own requests', (t) => {
  // Same length, same first and last 64 characters; they differ at one offset the key skips (it
  // samples every 16th character after the first 64).
  const head = `SELECT * FROM cache_b WHERE t = '${'x'.repeat(36)}`;
  const variant = (c: string) => `${head}${c}${'x'.repeat(200)}'`;
  const letters = 'abcdefghijkl';
  const texts = [...letters].map(variant);
  const at = head.length;
  t.true(at > 64 && at < texts[0].length - 64 && (at - 64) % 16 !== 0, 'the texts differ where the key does not look');
  for (const [i, sql] of texts.entries()) t.deepEqual(filterOf(sql), [{ Eq: ['t', { Str: `${'x'.repeat(36)}${letters[i]}${'x'.repeat(200)}` }] }]);
  const cached = texts.filter((sql) => {
    const first = compileScript(sql);
    return compileScript(sql) === first;
  }).length;
  t.is(cached, 8, 'a chain holds 8 texts; the rest compile every time');
});

test('a body remembered with its sql finds that script by its bytes; a body never remembered finds nothing', (t) => {
  const sql = `SELECT * FROM cache_c WHERE n = ${Date.now()}`;
  const body = Buffer.from(JSON.stringify({ sql }));
  t.is(knownBody(body), undefined);
  rememberBody(body, sql);
  t.is(knownBody(body), undefined, 'a script not compiled yet (or that failed to) is not remembered');
  const prepared = compileScript(sql);
  rememberBody(body, sql);
  t.is(knownBody(Buffer.from(body)), prepared);
  t.is(knownBody(Buffer.from(JSON.stringify({ sql, compile_only: true }))), undefined);
});

test('a remembered body is kept as a copy, and bodies that differ only where the key does not sample are told apart', (t) => {
  const texts = ['a', 'b'].map((c) => `SELECT * FROM cache_d WHERE t = '${'x'.repeat(40)}${c}${'x'.repeat(200)}'`);
  const bodies = texts.map((sql) => Buffer.from(JSON.stringify({ sql })));
  const at = bodies[0].findIndex((b, i) => b !== bodies[1][i]);
  t.true(at > 64 && at < bodies[0].length - 64 && (at - 64) % 16 !== 0, 'the bodies differ where the key does not look');
  const prepared = texts.map(compileScript);
  rememberBody(bodies[0], texts[0]);
  t.is(knownBody(bodies[1]), undefined);
  rememberBody(bodies[1], texts[1]);
  t.is(knownBody(bodies[1]), prepared[1]);
  // The request's buffer may be reused once the request is answered: the cache must not see it change.
  bodies[0].set(bodies[1]);
  t.is(knownBody(Buffer.from(JSON.stringify({ sql: texts[0] }))), prepared[0]);
  t.is(knownBody(bodies[0]), prepared[1]);
});
