// The compiled-script cache of /query (lib/features/sql/query.ts): a repeated script is not parsed
// again, texts that share the cache's sampled key are told apart by their whole text, and a key
// shared by more texts than a chain holds stops caching rather than slowing every lookup.
import test from 'ava';
import { compileScript } from '../../lib/features/sql/query';

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
