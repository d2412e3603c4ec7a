#!/usr/bin/env node
// `npm run docs:console`: the README's screenshot of the web console (docs/console.png). Starts
// `tessera serve` on a small in-memory demo store with a token, keeps some search traffic going so
// the plots have a shape, and photographs the page in headless Chromium (Debian's `chromium`, or
// the browser named by CHROMIUM) after it ran a search with its plan.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { chromium } = require('playwright-core');

const ROOT = path.join(__dirname, '..');
const TOKEN = 'demo-token';
const auth = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };

const TITLES = [
  'Graph-based nearest neighbour search',
  'Inverted files for vector search',
  'Product quantization for nearest neighbour search',
  'Okapi BM25 and its variants',
  'Reciprocal rank fusion outperforms single rankers',
  'Filtered approximate search with predicates',
  'Learned sparse retrieval',
  'Write-ahead logging in practice',
];

/** Starts the server and resolves its base URL once it listens. */
function serve() {
  const cli = path.join(ROOT, 'dist/lib/cli/main.js');
  const proc = spawn(process.execPath, [cli, 'serve', '--in-memory', '--dimension', '4', '--port', '0', '--token', TOKEN, '--log-level', 'warn']);
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1], proc });
    });
    proc.on('exit', (code) => reject(new Error(`tessera serve exited with ${code}`)));
  });
}

async function post(url, body) {
  const res = await fetch(url, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
}

async function seed(url) {
  const unit = (i) => {
    const v = [Math.sin(i), Math.cos(i), Math.sin(2 * i), Math.cos(3 * i)];
    const norm = Math.hypot(...v);
    return v.map((x) => Math.round((x / norm) * 1000) / 1000);
  };
  const papers = TITLES.map((title, i) => ({
    id: `paper-${i + 1}`,
    vector: unit(i + 1),
    attrs: { title: { Str: title }, year: { Int: 2012 + i }, tags: { List: i % 2 ? ['ann', 'index'] : ['text'] } },
  }));
  await post(`${url}/collections/papers/upsert`, { records: papers });
  await post(`${url}/collections/papers/fts-schema`, { fields: [{ field: 'title' }] });
  const notes = Array.from({ length: 5 }, (_, i) => ({ id: `note-${i + 1}`, vector: unit(20 + i), attrs: { text: { Str: `meeting note ${i + 1}` } } }));
  await post(`${url}/collections/notes/upsert`, { records: notes });
  const res = await fetch(`${url}/aliases/library`, { method: 'PUT', headers: auth, body: JSON.stringify({ target: 'papers' }) });
  if (!res.ok) throw new Error(`alias: ${res.status}`);
}

/** Searches at a rate that rises and falls, until `stop()`. */
function traffic(url) {
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      await post(`${url}/search`, { query: [Math.sin(i), Math.cos(i), 0.5, 0.1], top_k: 5 });
      await new Promise((resolve) => setTimeout(resolve, 20 + 60 * (1 + Math.sin(i / 40))));
    }
  })();
  return () => {
    running = false;
    return done;
  };
}

async function main() {
  const { url, proc } = await serve();
  try {
    await seed(url);
    const stop = traffic(url);
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${url}/console`);
    await page.fill('#token', TOKEN);
    await page.click('#token-use');
    await page.locator('#collections tbody tr', { hasText: 'papers' }).waitFor();
    await page.fill('#request', '{\n  "query": [0.84, 0.54, 0.1, -0.2],\n  "top_k": 5,\n  "plan": true\n}');
    await page.click('#run');
    await page.locator('#plan-box').waitFor();
    await page.waitForFunction(() => Number(document.querySelector('#rate-plot').dataset.points) >= 40, null, { timeout: 90_000 });
    await page.screenshot({ path: path.join(ROOT, 'docs/console.png'), fullPage: true });
    await browser.close();
    await stop();
  } finally {
    proc.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
