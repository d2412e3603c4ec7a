// ANN and quantization settings through Store.open: resolved with the spec's defaults, echoed by
// stats() and on the handle, recorded in the header by the writer and used by a later open that
// leaves them unset, and every refusal a 400 naming the option and the value before anything is
// created.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type OpenOptions, Store } from '../../lib/index';
import { root } from '../../lib/native';
import { REFUSED, type RefusedCase, quoted } from './index_settings_cases';
import { rejectsWith, tempDir } from './helpers';

const HNSW_DEFAULTS = { kind: 'Hnsw', m: 16, ef_construction: 200, ef_search: 64, overscan: 4, seed: 0 };
const IVF_DEFAULTS = { kind: 'Ivf', n_lists: 0, n_probe: 8, overscan: 4, seed: 0 };

const option = (setting: string) => setting.replace(/_(.)/g, (_, c: string) => c.toUpperCase());
const header = (dir: string) => fs.readFileSync(path.join(dir, 'HEADER'), 'utf8');
/** The header's setting lines (after the fixed four). */
const recorded = (dir: string) => header(dir).split('\n').slice(4).filter(Boolean);

async function configOf(options: OpenOptions) {
  const store = await Store.open(options);
  const stats = await store.stats();
  await store.close();
  return { ann: stats.ann, quantization: stats.quantization, handle: { ann: store.ann, quantization: store.quantization } };
}

test('stats echo hnsw with only its knobs, defaults filled in, and the handle says the same', async (t) => {
  const c = await configOf({ inMemory: true, dimension: 4, ann: 'hnsw', efSearch: 100 });
  t.deepEqual(c.ann, { ...HNSW_DEFAULTS, ef_search: 100 });
  t.is(c.quantization, null);
  t.deepEqual(c.handle, { ann: c.ann, quantization: null });
});

test('stats echo ivf with only its knobs, defaults filled in', async (t) => {
  t.deepEqual((await configOf({ inMemory: true, dimension: 4, ann: 'ivf' })).ann, IVF_DEFAULTS);
  const c = await configOf({ inMemory: true, dimension: 4, ann: 'ivf', nLists: 256, nProbe: 16, overscan: 2, seed: 2 ** 53 - 1 });
  t.deepEqual(c.ann, { kind: 'Ivf', n_lists: 256, n_probe: 16, overscan: 2, seed: 2 ** 53 - 1 });
});

test('stats echo int8 with rescore 4 and binary with rescore 16 by default, and an explicit rescore', async (t) => {
  t.deepEqual((await configOf({ inMemory: true, dimension: 4, quantization: 'int8' })).quantization, { kind: 'Int8', rescore: 4 });
  t.deepEqual((await configOf({ inMemory: true, dimension: 4, quantization: 'binary' })).quantization, { kind: 'Binary', rescore: 16 });
  const c = await configOf({ inMemory: true, dimension: 4, distance: 'Euclidean', quantization: 'int8', rescore: 10, ann: 'hnsw' });
  t.deepEqual(c.quantization, { kind: 'Int8', rescore: 10 });
  t.deepEqual(c.ann, HNSW_DEFAULTS);
});

test('a new store on disk gets hnsw with int8 codes by default, and records them', async (t) => {
  const dir = tempDir();
  const c = await configOf({ path: dir, dimension: 4 });
  t.deepEqual(c.ann, HNSW_DEFAULTS);
  t.deepEqual(c.quantization, { kind: 'Int8', rescore: 4 });
  t.deepEqual(recorded(dir), ['ann hnsw', 'm 16', 'ef_construction 200', 'ef_search 64', 'overscan 4', 'seed 0', 'quantization int8', 'rescore 4']);
});

test('ann and quantization are null when off: by none, or by default in memory (it seals nothing to index) and without vectors', async (t) => {
  for (const options of [
    { inMemory: true },
    { inMemory: true, ann: 'none', quantization: 'none' },
    { path: tempDir(), ann: 'none', quantization: 'none' },
  ] as const) {
    const c = await configOf({ dimension: 4, ...options });
    t.deepEqual(c, { ann: null, quantization: null, handle: { ann: null, quantization: null } });
  }
  const keywordOnly = tempDir();
  t.deepEqual((await configOf({ path: keywordOnly, dimension: 0 })).handle, { ann: null, quantization: null });
  t.deepEqual(recorded(keywordOnly), ['ann none', 'quantization none']);
});

test('integers may be given as decimal text, as the CLI hands them over', async (t) => {
  const c = await configOf({ inMemory: true, dimension: 4, ann: 'hnsw', m: '24', efConstruction: '024' });
  t.like(c.ann, { m: 24, ef_construction: 24 });
});

test('recorded defaults: a later open with nothing set runs with what the writer recorded', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'hnsw', m: 32, quantization: 'binary' });
  t.deepEqual(recorded(dir), ['ann hnsw', 'm 32', 'ef_construction 200', 'ef_search 64', 'overscan 4', 'seed 0', 'quantization binary', 'rescore 16']);
  const c = await configOf({ path: dir });
  t.deepEqual(c.ann, { ...HNSW_DEFAULTS, m: 32 });
  t.deepEqual(c.quantization, { kind: 'Binary', rescore: 16 });
});

test('an explicit setting wins over the recorded one and is recorded; unset knobs of the same kind keep theirs', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'hnsw', m: 32, efSearch: 80 });
  t.deepEqual((await configOf({ path: dir, efSearch: 120 })).ann, { ...HNSW_DEFAULTS, m: 32, ef_search: 120 });
  t.deepEqual((await configOf({ path: dir })).ann, { ...HNSW_DEFAULTS, m: 32, ef_search: 120 });
  t.true(recorded(dir).includes('ef_search 120'));
});

test('switching kinds starts from the defaults: knobs recorded for the old kind do not carry over', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'ivf', nProbe: 3, overscan: 9, quantization: 'int8', rescore: 7 });
  const c = await configOf({ path: dir, ann: 'hnsw', quantization: 'binary' });
  t.deepEqual(c.ann, HNSW_DEFAULTS);
  t.deepEqual(c.quantization, { kind: 'Binary', rescore: 16 });
  t.deepEqual(recorded(dir), ['ann hnsw', 'm 16', 'ef_construction 200', 'ef_search 64', 'overscan 4', 'seed 0', 'quantization binary', 'rescore 16']);
});

test('none turns a recorded setting off, and the store stays off on the next open', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'ivf', quantization: 'int8' });
  t.deepEqual(await configOf({ path: dir, ann: 'none' }).then((c) => [c.ann, c.quantization]), [null, { kind: 'Int8', rescore: 4 }]);
  t.deepEqual(await configOf({ path: dir, quantization: 'none' }).then((c) => [c.ann, c.quantization]), [null, null]);
  t.deepEqual(recorded(dir), ['ann none', 'quantization none']);
  t.deepEqual(await configOf({ path: dir }).then((c) => [c.ann, c.quantization]), [null, null]);
});

test('a knob set against a recorded kind it does not apply to is refused, naming the recorded kind', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'hnsw' });
  const e = await rejectsWith(t, Store.open({ path: dir, nProbe: 4 }), 400);
  t.regex(e.message, /^nProbe is set to "4", but it applies only with ann ivf \(the store records ann hnsw\)$/);
  t.deepEqual((await configOf({ path: dir, ann: 'ivf', nProbe: 4 })).ann, { ...IVF_DEFAULTS, n_probe: 4 });
});

test('readers and read-only handles run with their settings but record nothing', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'hnsw' });
  const before = header(dir);
  const ro = await Store.open({ path: dir, readOnly: true, ann: 'ivf', quantization: 'int8' });
  t.is(ro.role, 'Reader');
  t.deepEqual(ro.ann, IVF_DEFAULTS);
  t.deepEqual((await ro.stats()).quantization, { kind: 'Int8', rescore: 4 });
  await ro.close();
  t.is(header(dir), before);
});

test('a header without setting lines (an older build) means none, and opening it with none keeps its four lines', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4 });
  fs.writeFileSync(path.join(dir, 'HEADER'), 'tessera-store\nformat 1\ndimension 4\nmetric Cosine\n');
  t.deepEqual(await configOf({ path: dir }).then((c) => [c.ann, c.quantization]), [null, null]);
  await configOf({ path: dir, ann: 'none', quantization: 'none' });
  t.is(header(dir), 'tessera-store\nformat 1\ndimension 4\nmetric Cosine\n');
});

test('the format-1 fixture (no setting lines) opens with ann and quantization off and its header untouched', async (t) => {
  const dir = tempDir('compat');
  fs.cpSync(path.join(root, 'test/fixtures/store-format-1'), dir, { recursive: true });
  const before = header(dir);
  const c = await configOf({ path: dir });
  t.deepEqual([c.ann, c.quantization], [null, null]);
  t.is(header(dir), before);
});

test('header lines naming no known setting are skipped; a recorded value out of range is a corrupt header (500)', async (t) => {
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'hnsw' });
  fs.appendFileSync(path.join(dir, 'HEADER'), 'query_threads 3\nsomething-later\n');
  t.deepEqual((await configOf({ path: dir })).ann, HNSW_DEFAULTS);
  fs.writeFileSync(path.join(dir, 'HEADER'), header(dir).replace('m 16', 'm 999'));
  const e = await rejectsWith(t, Store.open({ path: dir }), 500);
  t.regex(e.message, /corrupt .*HEADER.*m must be an integer from 2 to 128, got "999"/);
});

const optionsOf = (c: RefusedCase): Record<string, string> => Object.fromEntries(Object.entries(c.settings).map(([k, v]) => [option(k), v]));

test('every refused setting is a 400 StoreError naming the option and the value (table)', async (t) => {
  for (const c of REFUSED) {
    const label = `${c.rule}: ${JSON.stringify(c.settings)}`;
    const e = await rejectsWith(t, Store.open({ inMemory: true, dimension: 4, distance: c.distance, ...optionsOf(c) }), 400, label);
    t.true(e.message.startsWith(`${option(c.names)} `), `${label}: ${e.message}`);
    t.true(e.message.includes(quoted(c)), `${label}: ${e.message}`);
    t.deepEqual(e.setting?.setting, c.names, label);
  }
});

test('numbers that are not integers in range, and values of other types, are refused with the value JS prints', async (t) => {
  for (const [value, shown] of [
    [1.5, '"1.5"'],
    [Number.NaN, '"NaN"'],
    [1e21, '"1e+21"'],
    [-0.5, '"-0.5"'],
    [null, '"null"'],
    [true, '"true"'],
    [{}, '"[object]"'],
  ] as const) {
    const e = await rejectsWith(t, Store.open({ inMemory: true, dimension: 4, ann: 'hnsw', efSearch: value as number }), 400, String(value));
    t.is(e.message, `efSearch must be an integer from 1 to 10000, got ${shown}`);
  }
});

test('a refused open leaves no directory behind, and leaves an existing store exactly as it was', async (t) => {
  const fresh = path.join(tempDir(), 'never-created');
  for (const c of REFUSED) await rejectsWith(t, Store.open({ path: fresh, dimension: 4, distance: c.distance, ...optionsOf(c) }), 400, c.rule);
  await rejectsWith(t, Store.open({ path: fresh, ann: 'hnsw' }), 400, 'a new store without a dimension');
  t.false(fs.existsSync(fresh));

  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, ann: 'ivf' });
  const files = fs.readdirSync(dir).sort();
  const before = header(dir);
  await rejectsWith(t, Store.open({ path: dir, efSearch: 10 }), 400);
  await rejectsWith(t, Store.open({ path: dir, ann: 'hnsw', m: 0 }), 400);
  t.deepEqual(fs.readdirSync(dir).sort(), files);
  t.is(header(dir), before);
});

test('Store.check refuses exactly what open would and touches nothing; it accepts what open accepts', async (t) => {
  const fresh = path.join(tempDir(), 'unborn');
  const e = await rejectsWith(t, Store.check({ path: fresh, dimension: 4, ann: 'hnsw', m: 1 }), 400);
  t.is(e.message, 'm must be an integer from 2 to 128, got "1"');
  await Store.check({ path: fresh, dimension: 4, ann: 'hnsw', m: 2 });
  t.false(fs.existsSync(fresh));
  const dir = tempDir();
  await configOf({ path: dir, dimension: 4, distance: 'Euclidean' });
  await rejectsWith(t, Store.check({ path: dir, quantization: 'binary' }), 400);
  await rejectsWith(t, Store.check({ path: dir, dimension: 8 }), 400);
  await Store.check({ path: dir, quantization: 'int8' });
});

test('Store.indexSettings lists every open option with its range or kinds and its default', (t) => {
  const byName = Object.fromEntries(Store.indexSettings().map((s) => [s.name, s]));
  t.deepEqual(Object.keys(byName), ['ann', 'm', 'ef_construction', 'ef_search', 'n_lists', 'n_probe', 'overscan', 'seed', 'quantization', 'rescore']);
  t.like(byName.ann, { option: 'ann', choices: 'none|hnsw|ivf', default: 'hnsw' });
  t.like(byName.quantization, { option: 'quantization', choices: 'none|int8|binary', default: 'int8' });
  t.like(byName.ef_search, { option: 'efSearch', choices: null, min: 1, max: 10000, needs: 'ann hnsw', default: '64' });
  t.like(byName.seed, { min: 0, max: 2 ** 53 - 1 });
});
