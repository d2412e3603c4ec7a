// What the collection cache tests share: a directory of their own, three small collections of
// records, and what a collection answers.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutionContext } from 'ava';
import { type Store, stringifyExact } from '../../lib/index';

export const COLLECTIONS = ['a', 'b', 'c'];
export const ROWS = 300;

/** A new directory, removed when the test ends. */
export function dir(t: ExecutionContext): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-cache-'));
  t.teardown(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** n records of a collection from id number `from`: 4-d vectors that tell the collections apart. */
export const records = (collection: string, from: number, n: number) => ({
  records: Array.from({ length: n }, (_, i) => ({
    id: `${collection}${from + i}`,
    vector: [1, (from + i) % 17, collection.charCodeAt(0), 0],
    attrs: { n: { Int: from + i } },
  })),
});

/** What a read of one collection answers, as text: a vector search and a listing. */
export async function answers(store: Store, c: string): Promise<string> {
  const hits = await store.search({ query: [1, 3, c.charCodeAt(0), 0], top_k: 5, scope: [c] });
  const rows = await store.list({ scope: [c], limit: 10_000, order_by: { field: 'n' } });
  return Buffer.from(stringifyExact({ hits, rows })).toString();
}
