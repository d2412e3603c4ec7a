// What the /metrics tests share: a server scraped after traffic of every kind, and promtool.
import type { ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { call, type Server, startServer, unitRecords } from '../http/helpers';

/**
 * A scrape of a fresh server after writes, vector, text and batch searches, a listing, a 400 and
 * a 404, so every series family the service exposes has samples.
 */
export async function scrapeAfterTraffic(server: Server): Promise<string> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await call(server, method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  };
  await ok('POST', '/collections/docs/upsert', { records: unitRecords(20, 4).map((r, i) => ({ ...r, attrs: { body: { Str: `note ${i} about rivers` } } })) });
  await ok('POST', '/collections/docs/fts-schema', { fields: ['body'] });
  await ok('POST', '/search', { query: [1, 0, 0, 0], top_k: 3 });
  await ok('POST', '/text-search', { field: 'body', query: 'rivers' });
  await ok('POST', '/search/batch', { queries: [{ query: [0, 1, 0, 0] }] });
  await ok('POST', '/list', { scope: ['docs'], limit: 5 });
  await ok('POST', '/flush');
  await ok('POST', '/compact', {});
  const refused = await call(server, 'POST', '/collections/docs/upsert', '{"records": [');
  if (refused.status !== 400) throw new Error(`a malformed upsert answered ${refused.status}`);
  const missing = await call(server, 'GET', '/no-such-route');
  if (missing.status !== 404) throw new Error(`an unknown route answered ${missing.status}`);
  return (await call(server, 'GET', '/metrics')).text;
}

/** The scrape of a server started as the CLI tests start it, stopped when the test ends. */
export async function scrapedServer(t: ExecutionContext): Promise<string> {
  const server = await startServer();
  t.teardown(() => server.stop());
  return scrapeAfterTraffic(server);
}

/** Runs promtool with `input` on stdin: its exit code and everything it printed. */
export function promtool(args: string[], input: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn('promtool', args);
    let output = '';
    proc.stdout.on('data', (d) => (output += d));
    proc.stderr.on('data', (d) => (output += d));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, output }));
    proc.stdin.end(input);
  });
}
