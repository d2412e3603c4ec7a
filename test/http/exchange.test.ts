// Exchange: one request/response pair, driven through a stand-in for uWebSockets.js's response so
// that the socket's backpressure and the order of events are the test's to choose.
import test from 'ava';
import type { Logger } from 'pino';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { HttpError } from '../../lib/http/errors';
import { Exchange } from '../../lib/http/exchange';
import type { PieceSource } from '../../lib/http/reply';
import { Request } from '../../lib/http/request';

/** A response whose socket takes nothing until drain() is called, and that records what was done to it. */
function stalledResponse() {
  let writable: ((offset: number) => boolean) | null = null;
  const res = {
    closed: false,
    ended: false,
    status: '',
    onAborted() {},
    onData() {},
    cork(fn: () => void) {
      fn();
    },
    writeStatus(line: string) {
      res.status = line;
    },
    writeHeader() {},
    getWriteOffset: () => 0,
    tryEnd: () => [res.ended, res.ended],
    onWritable(fn: (offset: number) => boolean) {
      writable = fn;
    },
    write: () => false,
    end() {
      res.ended = true;
    },
    close() {
      res.closed = true;
    },
    /** The socket drained: what waits for it goes out whole. */
    drain() {
      res.ended = true;
      writable?.(0);
    },
  };
  return res;
}

function request(errors: unknown[]): Request {
  const raw = { getHeader: () => '', getCaseSensitiveMethod: () => 'GET', getUrl: () => '/export', getParameter: () => '' };
  const log = { error: (fields: unknown) => errors.push(fields), warn() {}, info() {} };
  const root = { child: () => log } as unknown as Logger;
  return new Request(raw as unknown as HttpRequest, '/export', [], root);
}

test('a timeout answered while a stream fetched its first piece is sent whole, not cut as a failed stream, when its bytes wait for the socket', async (t) => {
  const res = stalledResponse();
  const logged: unknown[] = [];
  const finished: number[] = [];
  const exchange = new Exchange(
    res as unknown as HttpResponse,
    request(logged),
    (status) => finished.push(status),
    () => null,
  );
  let stop!: (err: Error) => void;
  const pieces: PieceSource = { next: () => new Promise((_, reject) => (stop = reject)), close() {} };

  const streamed = exchange.send({ status: 200, contentType: 'application/x-ndjson', pieces });
  exchange.abandon(new HttpError(504, 'request timed out'));
  stop(new Error('cancelled')); // the core's work stops with the request
  await streamed;

  t.is(res.status, '504 Gateway Timeout');
  t.false(res.closed, 'the connection stays open while the 504 waits for the socket');
  t.deepEqual(logged, [], 'no "response stream failed" for a stream that never began');
  t.deepEqual(finished, [], 'not finished before its last byte left');
  res.drain();
  t.deepEqual(finished, [504]);
});
