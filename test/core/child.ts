// The process side of helpers.Child: reads one JSON request per line, runs it on a Store, and
// writes one JSON reply per line as soon as the call settles (stdout is a pipe, so the write is
// synchronous: a reply on the wire means the call had resolved). Never exits on its own.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Store, type OpenOptions } from '../../lib/index';
import { native } from '../../lib/native';
import { genBatchBody } from './helpers';

let store: Store | null = null;

const need = (): Store => {
  if (!store) throw new Error('no store is open in the child');
  return store;
};

async function readAll(name: string): Promise<string> {
  const cursor = await need().recordsCursor(name);
  const pieces: Buffer[] = [];
  try {
    for (let p = await cursor.next(); p !== null; p = await cursor.next()) pieces.push(p);
  } finally {
    cursor.close();
  }
  return Buffer.concat(pieces).toString('utf8');
}

// biome-ignore lint/suspicious/noExplicitAny: a request line from the parent: JSON whose fields each op reads
async function handle(msg: any): Promise<unknown> {
  switch (msg.op) {
    case 'open': {
      store = await Store.open(msg.options as OpenOptions);
      return { role: store.role, writerHolder: store.writerHolder, dimension: store.dimension, distance: store.distance, pid: process.pid };
    }
    case 'kernels':
      return { supported: native.supportedKernels(), active: native.activeKernels() };
    case 'upsert':
      return need().upsert(msg.collection, Buffer.from(msg.body, 'utf8'));
    case 'upsertGen':
      return need().upsert(msg.collection, Buffer.from(genBatchBody(msg.tag, msg.start, msg.count, msg.dim), 'utf8'));
    case 'delete':
      return need().delete(msg.collection, { ids: msg.ids });
    case 'putMeta':
      return need().putMeta(msg.collection, msg.meta);
    case 'setVectorNames':
      return need().setVectorNames(msg.collection, msg.names);
    case 'putAlias':
      return need().putAlias(msg.name, msg.target);
    case 'createCollection':
      return need().createCollection(msg.collection);
    case 'searchJson':
      return (await need().searchJson(Buffer.from(msg.body, 'utf8'))).toString('utf8');
    case 'records':
      return readAll(msg.collection);
    case 'collections':
      return need().collections();
    case 'stats':
      return need().stats();
    case 'footprint':
      return need().footprintCached();
    case 'flush':
      return need().flush();
    case 'compact':
      return need().compact(msg.body ?? {});
    case 'waitForIndexes':
      return need().waitForIndexes();
    case 'close':
      return need().close();
    case 'commitVersion':
      return need().commitVersion();
    case 'inject':
      need()._injectFault(msg.fault ?? 'poison-next-write');
      return true;
    case 'poisoned':
      return need().poisoned();
    case 'fileSize':
      return fs.statSync(path.join(msg.dir, msg.file)).size;
    default:
      throw new Error(`unknown op ${msg.op}`);
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  handle(msg).then(
    (result) => process.stdout.write(`${JSON.stringify({ id: msg.id, ok: true, result: result ?? null })}\n`),
    (e) => process.stdout.write(`${JSON.stringify({ id: msg.id, ok: false, status: e?.status ?? null, message: String(e?.message ?? e) })}\n`),
  );
});
