// Store.share / Store.adopt: one open store used from another JS thread of the process (what each
// of the server's HTTP threads does): the same core store, so a write on either thread is read on
// the other at once; a Reader's refresh time is one for both; once the opener closed it, an adopt
// is a 503.
import test from 'ava';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { type SharedStore, Store, StoreError } from '../../lib/index';
import { tempDir } from './helpers';

const LIBRARY = path.join(__dirname, '..', '..', 'lib', 'index.js');

/** Runs `body` (an async function's body given `store`, the adopted handle) on a new thread; its result. */
function onAnotherThread<T>(shared: SharedStore, body: string): Promise<T> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { Store } = require(${JSON.stringify(LIBRARY)});
    (async () => {
      const store = Store.adopt(workerData);
      ${body}
    })().then((r) => parentPort.postMessage({ ok: r }), (e) => parentPort.postMessage({ error: { status: e.status, message: e.message } }));
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: shared });
    worker.once('message', (m: { ok?: T; error?: { status: number; message: string } }) => {
      void worker.terminate();
      if (m.error) reject(new StoreError(m.error.status, m.error.message));
      else resolve(m.ok as T);
    });
    worker.once('error', reject);
  });
}

test('a store shared with another thread is the same store: each thread reads what the other wrote, at once', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 3 });
  t.teardown(() => store.close());
  await store.upsert('c', { records: [{ id: 'main', vector: [1, 0, 0] }] });
  const seen = await onAnotherThread<string[]>(
    store.share(),
    `await store.upsert('c', { records: [{ id: 'worker', vector: [0, 1, 0] }] });
     return (await store.search({ scope: ['c'], query: [1, 0, 0], top_k: 5 })).map((h) => h.id);`,
  );
  t.deepEqual(seen.sort(), ['main', 'worker']);
  t.deepEqual(
    (await store.search({ scope: ['c'], query: [0, 1, 0], top_k: 1 })).map((h) => h.id),
    ['worker'],
  );
  t.is(store.footprintCached().doc_count, 2);
  t.is(store.share(), store.share(), 'one share per store, however often asked');
});

test("an adopted handle serves the opener's settings and role; a store closed by its opener is adopted by no one (503)", async (t) => {
  const dir = tempDir();
  await (await Store.open({ path: dir, dimension: 3 })).close();
  const store = await Store.open({ path: dir, dimension: 3, readOnly: true });
  const shared = store.share();
  const seen = await onAnotherThread<{ role: string; dimension: number; readOnly: boolean }>(
    shared,
    'return { role: store.role, dimension: store.dimension, readOnly: store.readOnly };',
  );
  t.deepEqual(seen, { role: store.role, dimension: 3, readOnly: true });
  await store.close();
  const refused = await t.throwsAsync(onAnotherThread(shared, 'return 1;'));
  t.is((refused as StoreError).status, 503);
  t.regex(refused.message, /cannot adopt the shared store/);
});

test('a store opened with fetchCollections or pull stays on its thread: share() is a 400', async (t) => {
  const store = await Store.open({ path: tempDir(), dimension: 3, pull: async () => {} });
  t.teardown(() => store.close());
  t.is(t.throws(() => store.share(), { instanceOf: StoreError }).status, 400);
});
