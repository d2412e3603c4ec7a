// `tessera import` stopped by a bad line: it names the line and the store's reason, keeps every
// line before it, and --resume continues from that line once it is fixed; the saved position is
// refused for a file changed before it.
import test from 'ava';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { runCli } from '../http/helpers';
import { exportedLines, freshStore, importFile, jsonlFile, lastLine } from './jsonl_helpers';

const record = (i: number) => `{"id":"r${i}","vector":[${i},0,1],"attrs":{"i":{"Int":${i}}}}`;
const BAD_LINE = 8;
const LINES = Array.from({ length: 10 }, (_, i) => (i + 1 === BAD_LINE ? record(i + 1).replace('[8,0,1]', '[8,0]') : record(i + 1)));

/** A store, and a file of ten lines whose eighth has a two-number vector, imported three lines a batch. */
async function stoppedImport() {
  const data = await freshStore();
  const file = jsonlFile(LINES);
  const stopped = await importFile(file, data, '--batch-size', '3');
  return { data, file, stopped };
}

const fixLine = (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace('[8,0]', '[8,0,1]'));

const ids = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { id: string }).id);

test("a bad line stops the import with its number and the store's reason, every line before it written", async (t) => {
  const { data, file, stopped } = await stoppedImport();
  t.is(stopped.code, 1);
  t.is(lastLine(stopped.stderr), `tessera: ${file}:${BAD_LINE}: vector has length 2 but the store dimension is 3`);
  t.deepEqual(ids(await exportedLines(data)), ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
  t.true(existsSync(`${file}.tessera-import`));
});

test('--resume after fixing the line imports the rest, each line once', async (t) => {
  const { data, file } = await stoppedImport();
  fixLine(file);
  const resumed = await importFile(file, data, '--batch-size', '3', '--resume');
  t.is(resumed.code, 0, resumed.stderr);
  t.is(JSON.parse(lastLine(resumed.stdout)).records, 3, 'lines 8 to 10, not the file again');
  const fixed = LINES.map((_, i) => record(i + 1));
  t.deepEqual((await exportedLines(data)).sort(), fixed.sort(), 'every line once, as it is in the file');
  // A line written twice would leave a superseded row behind.
  const stats = JSON.parse((await runCli(['stats', '--data', data])).stdout);
  t.like(stats.footprint, { rows: 10, dead_rows: 0, doc_count: 10 });
  t.false(existsSync(`${file}.tessera-import`), 'a finished import leaves no position behind');
});

test('--resume refuses a file changed before the saved position', async (t) => {
  const { data, file } = await stoppedImport();
  writeFileSync(file, readFileSync(file, 'utf8').replace('"r2"', '"R2"'));
  const r = await importFile(file, data, '--resume');
  t.is(r.code, 2);
  t.is(r.stderr, `tessera: --resume: ${file} changed before line ${BAD_LINE}, where the last import stopped; run without --resume to import it all\n`);
});

test('--resume refuses another collection or a file with no saved position', async (t) => {
  const { data, file } = await stoppedImport();
  const other = await runCli(['import', file, '--collection', 'other', '--data', data, '--resume']);
  t.is(other.code, 2);
  t.regex(other.stderr, /^tessera: --resume: .* is an import into collection c, not other\n$/);
  const fresh = await importFile(jsonlFile([record(1)]), data, '--resume');
  t.is(fresh.code, 2);
  t.regex(fresh.stderr, /^tessera: --resume: no saved position .*; run without --resume\n$/);
});

test('a line holding anything but one JSON object stops the import naming it', async (t) => {
  const data = await freshStore();
  for (const bad of ['{"id":"x"},{"id":"y"}', '{"id":"x"', '["x"]', '"x"']) {
    const file = jsonlFile([record(1), bad, record(3)]);
    const r = await importFile(file, data);
    t.is(r.code, 1, bad);
    t.is(lastLine(r.stderr), `tessera: ${file}:2: not one JSON object; each line holds one record {"id", "vector"?, "vectors"?, "attrs"?}`, bad);
  }
  t.deepEqual(ids(await exportedLines(data)), ['r1']);
});
