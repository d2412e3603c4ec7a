// The web console: GET /console and its static files. They hold no data (the page reads the public
// API with fetch, sending the token the user typed) and answer for the whole process, never from a
// store. Like any route they need the server's token, unless the operator serves them without it
// (--console-without-token), like a probe. `npm run compile` copies the files of ./console/ beside
// this module.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { HttpError } from './errors';
import { type Reply, notModified } from './reply';
import { type Route, route } from './route';
import type { JsonSchema } from './schema';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Only our own files, no inline script or style, fetch to this origin only, never framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src data:', // the empty favicon, so the browser does not ask for /favicon.ico
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  contentType: string;
  body: Buffer;
  etag: string;
}

const PAGE = 'index.html';

/** Every file of `dir` with a known content type, read once: they are a few kilobytes. */
function readAssets(dir: string): Map<string, Asset> {
  // A build that skipped the copy step (a bare `tsc`) fails here, at startup, saying so.
  if (!existsSync(path.join(dir, PAGE))) throw new Error(`the web console's files are missing from ${dir}; build with npm run compile`);
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!contentType) continue;
    const body = readFileSync(path.join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { contentType, body, etag });
  }
  return assets;
}

/** The asset, or 304 when the client's copy is current. `no-cache` makes the browser ask each time, so an upgrade shows at once. */
function serve(asset: Asset, ifNoneMatch: string | undefined): Reply {
  const headers = {
    ETag: asset.etag,
    'Cache-Control': 'no-cache',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === asset.etag)) return notModified(headers);
  return { status: 200, contentType: asset.contentType, body: asset.body, headers };
}

const TEXT: JsonSchema = { type: 'string' };
const NOT_MODIFIED = { description: 'The copy the browser holds (If-None-Match) is current; no body' };

/** GET /console (the page) and GET /console/{file} (its script and style sheet); `withoutToken`: served like a probe. */
export function consoleRoutes(withoutToken: boolean, dir = path.join(__dirname, 'console')): Route[] {
  const assets = readAssets(dir);
  const page = assets.get(PAGE) as Asset;
  const headers = ['if-none-match'];
  const access = withoutToken ? 'probe' : 'read';
  return [
    route({
      method: 'GET',
      path: '/console',
      access,
      global: true,
      headers,
      doc: {
        operationId: 'console',
        summary: 'The web console page',
        responses: { 200: { description: 'The page', content: { [CONTENT_TYPES['.html']]: TEXT } }, 304: NOT_MODIFIED },
      },
      handle: (req) => serve(page, req.headers['if-none-match']),
    }),
    route({
      method: 'GET',
      path: '/console/{file}',
      access,
      global: true,
      headers,
      doc: {
        operationId: 'consoleFile',
        summary: "The web console's script and style sheet",
        responses: { 200: { description: 'The file', content: { [CONTENT_TYPES['.js']]: TEXT, [CONTENT_TYPES['.css']]: TEXT } }, 304: NOT_MODIFIED },
        errors: [404],
      },
      handle: (req) => {
        const asset = assets.get(req.param('file'));
        if (!asset) throw new HttpError(404, `the console has no file ${JSON.stringify(req.param('file'))}; open /console`);
        return serve(asset, req.headers['if-none-match']);
      },
    }),
  ];
}
