// GET /console over plain HTTP: the page and its files, their headers, caching, and the token rule
// (with --console-without-token the page needs none, and the API it calls still does; without the
// flag it needs the token like any route). The browser test is console_browser.test.ts.
import test from 'ava';
import { call, startServer } from './helpers';

const TOKEN = 'console-token';

const server = startServer(['--token', TOKEN, '--console-without-token']);
test.after.always(async () => (await server).stop());

test('with a token and without --console-without-token, the console answers 401 like any route but the probes', async (t) => {
  const guarded = await startServer(['--token', TOKEN]);
  t.teardown(() => guarded.stop());
  for (const path of ['/console', '/console/console.js', '/console/nope.js']) {
    const r = await call(guarded, 'GET', path);
    t.is(r.status, 401, path);
    t.regex(r.json.error, /bearer token/, path);
  }
  const authorized = await call(guarded, 'GET', '/console', undefined, { Authorization: `Bearer ${TOKEN}` });
  t.is(authorized.status, 200);
  t.regex(authorized.text, /<title>Tessera console<\/title>/);
});

/** The files the page names in src= and href= (other than the inline favicon). */
const filesOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]);

test('GET /console answers the page as HTML without a token, under a strict Content-Security-Policy', async (t) => {
  const r = await call(await server, 'GET', '/console');
  t.is(r.status, 200);
  t.is(r.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = r.headers.get('content-security-policy') ?? '';
  t.regex(csp, /default-src 'none'/);
  t.regex(csp, /script-src 'self'(;|$)/);
  t.regex(csp, /connect-src 'self'(;|$)/);
  t.regex(csp, /frame-ancestors 'none'/);
  t.notRegex(csp, /unsafe/);
  t.is(r.headers.get('x-content-type-options'), 'nosniff');
  t.regex(r.text, /<title>Tessera console<\/title>/);
});

test('the page carries no inline script or style, which its policy would refuse', async (t) => {
  const { text } = await call(await server, 'GET', '/console');
  t.deepEqual(text.match(/<script(?![^>]*\ssrc=)[^>]*>/g), null, 'every script element loads a file');
  t.deepEqual(text.match(/\son\w+=/g), null, 'no event handler attributes');
  t.deepEqual(text.match(/<style|\sstyle=/g), null, 'no style element or attribute');
});

test("the page's script and style sheet are served with their content types, without a token", async (t) => {
  const { text } = await call(await server, 'GET', '/console');
  const files = filesOf(text);
  t.deepEqual(files.sort(), ['/console/console.css', '/console/console.js']);
  const types: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };
  for (const file of files) {
    const r = await call(await server, 'GET', file);
    t.is(r.status, 200, file);
    t.is(r.headers.get('content-type'), types[file.split('.').pop() as string], file);
    t.truthy(r.headers.get('content-security-policy'), file);
    t.true(r.text.length > 0, file);
  }
});

test('the API the page calls still needs the token', async (t) => {
  t.is((await call(await server, 'GET', '/collections')).status, 401);
  t.is((await call(await server, 'GET', '/collections', undefined, { Authorization: `Bearer ${TOKEN}` })).status, 200);
});

test('a file the console does not have is 404 with a JSON error pointing at /console', async (t) => {
  for (const path of ['/console/nope.js', '/console/..%2Fpackage.json', '/console/index.htm']) {
    const r = await call(await server, 'GET', path);
    t.is(r.status, 404, path);
    t.regex(r.json.error, /\/console/, path);
  }
});

test('each file carries an ETag and no-cache; a current If-None-Match answers 304 with no body, a stale one the file', async (t) => {
  for (const path of ['/console', '/console/console.js']) {
    const first = await call(await server, 'GET', path);
    const etag = first.headers.get('etag') ?? '';
    t.regex(etag, /^"[\w-]+"$/, path);
    t.is(first.headers.get('cache-control'), 'no-cache', path);

    const current = await call(await server, 'GET', path, undefined, { 'If-None-Match': `"other", ${etag}` });
    t.is(current.status, 304, path);
    t.is(current.text, '', path);
    t.is(current.headers.get('content-length'), null, `${path}: a 304 has no Content-Length`);
    t.is(current.headers.get('etag'), etag, path);

    const stale = await call(await server, 'GET', path, undefined, { 'If-None-Match': '"stale"' });
    t.is(stale.status, 200, path);
    t.is(stale.text, first.text, path);
  }
});

test('console requests count under their route templates, never a file name', async (t) => {
  await call(await server, 'GET', '/console');
  await call(await server, 'GET', '/console/console.css');
  const metrics = (await call(await server, 'GET', '/metrics')).text;
  t.regex(metrics, /svc_http_requests_total\{route="\/console",status="2xx"\} [1-9]/);
  t.regex(metrics, /svc_http_requests_total\{route="\/console\/\{file\}",status="2xx"\} [1-9]/);
  t.notRegex(metrics, /route="\/console\/console\.css"/);
});
