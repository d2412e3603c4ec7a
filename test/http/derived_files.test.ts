// The derived files of sealed segments (full-text postings, filter indexes, id index) as a user
// meets them: a server SIGKILLed right after /flush (its background save may or may not have run)
// restarts with the same answers and writes what was missing while opening; the start after that
// serves every part from its file, as the /metrics gauges say.
import test from 'ava';
import { type Server, call, prng, startServer, tempDir, unitRecords } from '../http/helpers';

const WORDS = 'amber basalt cinder delta ember fjord granite harbor inlet jetty'.split(' ');

async function post(server: Server, path: string, body: unknown): Promise<unknown> {
  const r = await call(server, 'POST', path, body);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.json;
}

async function answers(server: Server): Promise<unknown> {
  return {
    text: await post(server, '/text-search', { field: 'body', query: 'harbor ember', top_k: 10 }),
    list: await post(server, '/list', { filter: [{ ContainsAllTokens: ['body', 'delta fjord'] }], limit: 1000, include_attributes: [] }),
    fuzzy: await post(server, '/list', { filter: [{ Fuzzy: ['body', 'amber basalts', 1] }], limit: 1000, include_attributes: [] }),
    similar: await post(server, '/search/similar', { collection: 'docs', id: 'r123', top_k: 5 }),
  };
}

async function gauges(server: Server): Promise<{ mapped: number; built: number }> {
  const text = (await call(server, 'GET', '/metrics')).text;
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
  return { mapped: read('svc_derived_indexes_mapped'), built: read('svc_derived_indexes_built') };
}

test('SIGKILL right after /flush: the restart answers alike and writes what was unsaved; the next start maps every part', async (t) => {
  const dir = tempDir();
  const first = await startServer(['--data', dir]);
  await post(first, '/collections/docs', {});
  await post(first, '/collections/docs/fts-schema', { fields: ['body'] });
  await post(first, '/collections/docs/filter-index', { fields: ['body'] });
  const rand = prng(5);
  const records = unitRecords(3000, 4, rand).map((r) => {
    const body = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    return { ...r, attrs: { body: { Str: body } } };
  });
  for (const from of [0, 1500]) {
    await post(first, '/collections/docs/upsert', { records: records.slice(from, from + 1500) });
    await post(first, '/flush', {});
  }
  const before = await answers(first);
  for (const [what, hits] of Object.entries(before as Record<string, unknown[]>)) t.true(hits.length > 0, `${what} finds something`);
  t.deepEqual(await gauges(first), { mapped: 0, built: 6 }, 'two sealed segments, their parts built at the seals');
  await first.stop('SIGKILL');

  const second = await startServer(['--data', dir]);
  t.deepEqual(await answers(second), before);
  const afterCrash = await gauges(second);
  t.is(afterCrash.mapped + afterCrash.built, 6, `parts the save reached are mapped, the rest rebuilt: ${JSON.stringify(afterCrash)}`);
  await second.stop('SIGKILL');

  const third = await startServer(['--data', dir]);
  t.deepEqual(await gauges(third), { mapped: 6, built: 0 }, 'the open after the crash wrote every missing file');
  t.deepEqual(await answers(third), before);
  await third.stop('SIGTERM');
});
