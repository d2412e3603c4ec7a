// A real HTTP server standing in for a provider in the provider tests: it records every request and
// lets each test answer (or not) as the provider under test would.
import type { ExecutionContext } from 'ava';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: the request's JSON; each test reads the fields it asserts
  body: any;
  /** performance.now() when the request arrived. */
  at: number;
  req: IncomingMessage;
}

export interface FakeProvider {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  calls: Call[];
}

/** Starts a provider answering with `handle`, on a free port; it stops when the test ends. */
export async function fakeProvider(t: ExecutionContext, handle: (call: Call, res: ServerResponse) => void): Promise<FakeProvider> {
  const calls: Call[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const call = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
        at: performance.now(),
        req,
      };
      calls.push(call);
      handle(call, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

/** Answers status with body (JSON unless a string) and headers. */
export function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** `text 0`, `text 1`...: texts whose number the fake embedders below put in the vector's first component. */
export const numbered = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `text ${from + i}`);

/** The vector a fake embedder answers for a text: [its number, 1, 2], so a test can check the order. */
export const vectorOf = (text: string): number[] => [Number(text.split(' ')[1]), 1, 2];

/** An OpenAI-style embeddings answer for these texts, listed in reverse so the client must sort by index. */
export const openaiEmbeddings = (texts: string[]) => ({
  object: 'list',
  data: texts.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) })).reverse(),
  model: 'm',
});

/** Resolves when the request's connection closes: the client gave up on it. */
export const closed = (call: Call): Promise<void> =>
  new Promise((resolve) => (call.req.socket.destroyed ? resolve() : call.req.socket.once('close', () => resolve())));

/** What promise rejects with, which need not be an Error (an AbortSignal's default reason is a DOMException). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('the promise resolved');
}
