// The web console in real headless Chromium (Debian's `chromium`, driven by playwright-core): with
// the token typed into the page it lists the collections with their counts, runs searches from the
// playground and shows their hits and plan, and plots the request rate and latency from /metrics.
import { type Page, chromium } from 'playwright-core';
import { testNeedingTools } from '../harness/optional_tools';
import { type Server, call, startServer, tempDir } from './helpers';

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'console-browser-token';
const auth = { Authorization: `Bearer ${TOKEN}` };

/** Two collections: three papers with a full-text title, two notes without text. */
async function seed(server: Server): Promise<void> {
  const papers = [
    { id: 'p1', vector: [1, 0, 0, 0], attrs: { title: { Str: 'Graph search for vectors' }, year: { Int: 2021 } } },
    { id: 'p2', vector: [0.9, 0.1, 0, 0], attrs: { title: { Str: 'Inverted files for vector search' }, year: { Int: 2019 } } },
    { id: 'p3', vector: [0, 1, 0, 0], attrs: { title: { Str: 'Ranking with BM25' }, year: { Int: 2009 } } },
  ];
  const notes = [
    { id: 'n1', vector: [0, 0, 1, 0] },
    { id: 'n2', vector: [0, 0, 0, 1] },
  ];
  for (const [path, body] of [
    ['/collections/papers/upsert', { records: papers }],
    ['/collections/papers/fts-schema', { fields: [{ field: 'title' }] }],
    ['/collections/notes/upsert', { records: notes }],
  ] as const) {
    const r = await call(server, 'POST', path, body, auth);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  }
}

/** The cells of a table's body rows, as text. */
const rowsOf = (page: Page, table: string) =>
  page.$$eval(`${table} tbody tr`, (rows) => rows.map((row) => [...(row as HTMLTableRowElement).cells].map((c) => c.textContent)));

/** Chooses `route` in the playground, types `body` and runs it; resolves once its answer is shown. */
async function runInPlayground(page: Page, route: string, body: unknown): Promise<string> {
  await page.selectOption('#route', route);
  await page.fill('#request', JSON.stringify(body));
  await page.click('#run');
  const outcome = page.locator('#outcome', { hasText: `POST ${route} → ` });
  await outcome.waitFor();
  return (await outcome.textContent()) ?? '';
}

testNeedingTools(['chromium'], 'the console, with the token typed in, lists collections, runs searches and plots /metrics', async (t) => {
  const server = await startServer(['--token', TOKEN, '--console-without-token']);
  t.teardown(() => server.stop());
  await seed(server);
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  t.teardown(() => browser.close());
  const page = await browser.newPage();

  // Anything the page's policy refused or its script threw shows up here. The browser also logs
  // the 401s before the token was entered and the 400 this test provokes, which are expected.
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (message) => {
    const expected = /^Failed to load resource: the server responded with a status of 40[01] /.test(message.text());
    if (message.type() === 'error' && !expected) problems.push(message.text());
  });
  const sent: { url: string; authorization?: string }[] = [];
  page.on('request', (request) => sent.push({ url: request.url(), authorization: request.headers().authorization }));

  await page.goto(`${server.url}/console`);
  // The page loads without the token; the API it calls refuses, and the page says what to do.
  await page.locator('#notice', { hasText: '401' }).waitFor();
  t.regex((await page.textContent('#notice')) ?? '', /token/);

  await page.fill('#token', TOKEN);
  await page.click('#token-use');
  await page.locator('#collections tbody tr', { hasText: 'papers' }).waitFor();
  t.deepEqual(await rowsOf(page, '#collections'), [
    ['notes', '2', ''],
    ['papers', '3', ''],
  ]);
  t.regex((await page.textContent('#stats')) ?? '', /dimension4/);
  t.is(await page.textContent('#notice'), '');

  const search = await runInPlayground(page, '/search', { query: [1, 0, 0, 0], top_k: 2, scope: ['papers'] });
  t.regex(search, /→ 200 · 2 hits/);
  const hits = await rowsOf(page, '#hits');
  t.deepEqual(
    hits.map(([rank, collection, id]) => [rank, collection, id]),
    [
      ['1', 'papers', 'p1'],
      ['2', 'papers', 'p2'],
    ],
  );
  t.is(hits[0][3], '1');
  t.regex(hits[0][4] ?? '', /title="Graph search for vectors"\s+year=2021/);
  t.true(await page.locator('#plan-box').isHidden(), 'no plan was asked for');

  await runInPlayground(page, '/search', { query: [1, 0, 0, 0], top_k: 2, plan: true });
  await page.locator('#plan-box').waitFor();
  t.regex((await page.textContent('#plan-summary')) ?? '', /^path exact · \d+ µs · 5 rows scanned/);
  t.regex((await page.textContent('#plan')) ?? '', /"path": "exact"/);

  const textSearch = await runInPlayground(page, '/text-search', { field: 'title', query: 'vector search' });
  t.regex(textSearch, /→ 200 · 2 hits/);
  t.deepEqual((await rowsOf(page, '#hits')).map((row) => row[2]).sort(), ['p1', 'p2']);
  t.true(await page.locator('#plan-box').isHidden(), '/text-search has no plan');

  const refused = await runInPlayground(page, '/search', { query: [1, 0] });
  t.regex(refused, /→ 400: .*dimension/);
  t.true(await page.locator('#hits').isHidden());

  // The plots: a point per scrape after the first; while requests arrive, a rate above 0 and
  // latency quantiles.
  let traffic = true;
  const requests = (async () => {
    while (traffic) await call(server, 'GET', '/health');
  })();
  await page.locator('#rate-now', { hasText: /[1-9][\d.]* requests\/s/ }).waitFor();
  await page.locator('#latency-now', { hasText: /p50 [\d.]+ ms · p99 [\d.]+ ms/ }).waitFor();
  traffic = false;
  await requests;
  t.true(Number(await page.getAttribute('#rate-plot', 'data-points')) >= 1);
  t.true(Number(await page.getAttribute('#latency-plot', 'data-points')) >= 1);

  // The token went in a header on every API call after it was entered, never into a URL.
  const api = sent.filter(({ url }) => !new URL(url).pathname.startsWith('/console'));
  t.true(api.some(({ url }) => url.endsWith('/text-search')));
  t.true(sent.every(({ url }) => !url.includes(TOKEN)));
  const afterToken = api.slice(api.findIndex(({ authorization }) => authorization !== undefined));
  t.true(afterToken.length > 0 && afterToken.every(({ authorization }) => authorization === `Bearer ${TOKEN}`));
  t.deepEqual(problems, []);
});

testNeedingTools(
  ['chromium'],
  'on a --namespaced server the console asks for a namespace, then shows and searches that tenant through /ns/{namespace}',
  async (t) => {
    const server = await startServer(['--namespaced', '--data', tempDir()]);
    t.teardown(() => server.stop());
    for (const [tenant, id] of [
      ['acme', 'a1'],
      ['globex', 'g1'],
    ]) {
      const r = await call(server, 'POST', `/ns/${tenant}/collections/docs/upsert`, { records: [{ id, vector: [1, 0, 0, 0] }] });
      if (r.status !== 200) throw new Error(`${tenant}: ${r.status} ${r.text}`);
    }
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    const paths: string[] = [];
    page.on('request', (request) => paths.push(new URL(request.url()).pathname));

    await page.goto(`${server.url}/console`);
    await page.locator('#notice', { hasText: 'choose a namespace' }).waitFor();
    t.true(await page.locator('#namespace-form').isVisible());
    t.deepEqual((await page.$$eval('#namespaces option', (options) => options.map((o) => (o as HTMLOptionElement).value))).sort(), ['acme', 'globex']);

    await page.fill('#namespace', 'globex');
    await page.click('#namespace-form button');
    await page.locator('#collections tbody tr', { hasText: 'docs' }).waitFor();
    t.deepEqual(await rowsOf(page, '#collections'), [['docs', '1', '']]);
    t.is(new URL(page.url()).search, '?ns=globex');
    const search = await runInPlayground(page, '/search', { query: [1, 0, 0, 0], top_k: 5 });
    t.regex(search, /→ 200 · 1 hits?/);
    t.deepEqual(
      (await rowsOf(page, '#hits')).map((row) => row[2]),
      ['g1'],
    );
    t.true(paths.includes('/ns/globex/search'));
    t.true(paths.includes('/metrics'), 'process-wide routes take no prefix');
    t.false(
      paths.some((p) => p.startsWith('/ns/acme')),
      'the other tenant was never asked',
    );
    t.deepEqual(problems, []);
  },
);
