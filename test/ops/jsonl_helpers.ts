// What the import and export tests share: a fresh store, a JSONL file, and the CLI around them.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../lib/index';
import { runCli, tempDir } from '../http/helpers';

const DIMENSION = 3;

/** A new store directory: Euclidean, so vectors come back exactly as sent, with the vector name `title` declared on `collection`. */
export async function freshStore(collection = 'c'): Promise<string> {
  const data = path.join(tempDir(), 'store');
  const store = await Store.open({ path: data, dimension: DIMENSION, distance: 'Euclidean' });
  await store.createCollection(collection);
  await store.setVectorNames(collection, ['title']);
  await store.close();
  return data;
}

/** `lines` written to a new FILE.jsonl, one per line. */
export function jsonlFile(lines: string[], name = 'records.jsonl'): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export const importFile = (file: string, data: string, ...flags: string[]) => runCli(['import', file, '--collection', 'c', '--data', data, ...flags]);

/** The collection's records as `tessera export` writes them, one line each, sorted by id. */
export async function exportedLines(data: string, collection = 'c'): Promise<string[]> {
  const r = await runCli(['export', '--collection', collection, '--data', data]);
  if (r.code !== 0) throw new Error(`export failed: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  const id = (line: string) => (JSON.parse(line) as { id: string }).id;
  return lines.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

/** The last line a command wrote to a stream: its error or its summary. */
export const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';
