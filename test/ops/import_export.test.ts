// `tessera import` then `tessera export`: records come back as they went in, Ints to the last bit,
// Unicode and vectors (default and named) included; an export imports back to the same export.
import test from 'ava';
import * as path from 'node:path';
import { parseExact } from '../../lib/exact_json';
import { runCli, tempDir } from '../http/helpers';
import { exportedLines, freshStore, importFile, jsonlFile, lastLine } from './jsonl_helpers';

// Each line as a user would write it; vectors hold values a float32 keeps exactly.
const LINES = [
  '{"id":"int-edges","vector":[0.5,-1.25,3],"attrs":{"max":{"Int":9223372036854775807},"min":{"Int":-9223372036854775808},"past_double":{"Int":9007199254740993},"when":{"DateTime":-62135596800000}}}',
  '{"id":"unicode ✓ 日本語 😀","vector":[0,0,1],"attrs":{"s":{"Str":"e\\u0301 \\"quoted\\" {braces} tab\\t 𝄞 \\u2028"},"tags":{"List":["α","β"]}}}',
  '{ "id": "spaced and text-only", "attrs": { "n": "Null", "f": {"Float": 1.0}, "neg": {"Float": -2.5}, "b": {"Bool": false} } }',
  '{"id":"named","vector":[1,2,3],"vectors":{"title":[0.25,0.5,0.75]}}',
];

interface Exported {
  id: string;
  vector: number[] | null;
  vectors?: Record<string, number[]>;
  attrs: Record<string, unknown>;
}

/** What export writes for a line: vector null when absent, attrs {} when absent. */
function asExported(line: string): Exported {
  const r = parseExact<Partial<Exported> & { id: string }>(line);
  return { id: r.id, vector: r.vector ?? null, ...(r.vectors ? { vectors: r.vectors } : {}), attrs: r.attrs ?? {} };
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

test('import then export gives back every record, Int and DateTime exact', async (t) => {
  const data = await freshStore();
  const imported = await importFile(jsonlFile(LINES), data);
  t.is(imported.code, 0, imported.stderr);
  t.deepEqual(JSON.parse(lastLine(imported.stdout)).records, LINES.length);
  const exported = await exportedLines(data);
  t.deepEqual(
    exported.map((l) => parseExact<Exported>(l)),
    LINES.map(asExported).sort(byId),
  );
  const edges = exported.find((l) => l.includes('"int-edges"')) ?? '';
  for (const digits of ['9223372036854775807', '-9223372036854775808', '9007199254740993']) t.true(edges.includes(`{"Int":${digits}}`), digits);
});

test('an export imports into another store and exports again byte for byte', async (t) => {
  const first = await freshStore();
  t.is((await importFile(jsonlFile(LINES), first)).code, 0);
  const out = path.join(tempDir(), 'export.jsonl');
  const exported = await runCli(['export', '--collection', 'c', '--data', first, '--out', out]);
  t.is(exported.code, 0, exported.stderr);
  t.deepEqual(JSON.parse(lastLine(exported.stderr)).records, LINES.length);
  const second = await freshStore();
  t.is((await importFile(out, second)).code, 0);
  t.deepEqual(await exportedLines(second), await exportedLines(first));
});

test('import reports progress on stderr, by bytes read, ending at 100%', async (t) => {
  const data = await freshStore();
  const lines = Array.from({ length: 50 }, (_, i) => `{"id":"p${i}","vector":[${i},0,1]}`);
  const r = await importFile(jsonlFile(lines), data, '--batch-size', '10');
  t.is(r.code, 0, r.stderr);
  const progress = r.stderr.trimEnd().split('\n');
  for (const line of progress) t.regex(line, /^import \[[#.]{30}\] \d+% of \d+(\.\d)? (B|KiB|MiB), \d+ records$/);
  t.true(progress.length >= 3, 'a line at each tenth of the way, not only the last');
  t.regex(progress.at(-1) ?? '', /\] 100% of .*, 50 records$/);
});
