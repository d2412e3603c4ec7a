// The --ann ... --rescore flags of `tessera serve`, started as a user would: /stats echoes what the
// server runs with, the store records it for the next start, and every bad value exits 2 naming
// the flag and the value before the server listens or the store directory is touched.
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REFUSED, type RefusedCase, quoted } from '../core/index_settings_cases';
import { call, runCli, startServer, tempDir } from './helpers';

const HNSW_DEFAULTS = { kind: 'Hnsw', m: 16, ef_construction: 200, ef_search: 64, overscan: 4, seed: 0 };
const IVF_DEFAULTS = { kind: 'Ivf', n_lists: 0, n_probe: 8, overscan: 4, seed: 0 };

/** Starts a server with `args`, reads /stats' ann and quantization, and stops it cleanly. */
async function served(args: string[]): Promise<{ ann: unknown; quantization: unknown }> {
  const server = await startServer(args);
  try {
    const { ann, quantization } = (await call(server, 'GET', '/stats')).json;
    return { ann, quantization };
  } finally {
    await server.stop('SIGTERM');
  }
}

test('/stats echoes --ann hnsw with its knobs, unset ones at their defaults', async (t) => {
  t.deepEqual(await served(['--in-memory', '--ann', 'hnsw', '--m', '24', '--ef-search=100', '--seed', '9']), {
    ann: { ...HNSW_DEFAULTS, m: 24, ef_search: 100, seed: 9 },
    quantization: null,
  });
});

test('/stats echoes --ann ivf with its knobs, unset ones at their defaults', async (t) => {
  t.deepEqual(await served(['--in-memory', '--ann', 'ivf', '--n-lists', '128', '--overscan', '2']), {
    ann: { ...IVF_DEFAULTS, n_lists: 128, overscan: 2 },
    quantization: null,
  });
});

test('/stats echoes --quantization int8 (rescore 4) and binary (rescore 16), and an explicit --rescore', async (t) => {
  t.deepEqual(await served(['--in-memory', '--quantization', 'int8']), { ann: null, quantization: { kind: 'Int8', rescore: 4 } });
  t.deepEqual(await served(['--in-memory', '--quantization', 'binary']), { ann: null, quantization: { kind: 'Binary', rescore: 16 } });
  t.deepEqual(await served(['--in-memory', '--distance', 'DotProduct', '--quantization', 'int8', '--rescore', '12']), {
    ann: null,
    quantization: { kind: 'Int8', rescore: 12 },
  });
});

test('a new store on disk serves hnsw with int8 codes when no flag says otherwise', async (t) => {
  t.deepEqual(await served(['--data', tempDir()]), { ann: HNSW_DEFAULTS, quantization: { kind: 'Int8', rescore: 4 } });
});

test('/stats has ann and quantization null in memory when no flag turns them on, or when none does', async (t) => {
  t.deepEqual(await served(['--in-memory']), { ann: null, quantization: null });
  t.deepEqual(await served(['--in-memory', '--ann', 'none', '--quantization', 'none']), { ann: null, quantization: null });
});

test('a later start with no index flags uses the settings the store recorded', async (t) => {
  const data = tempDir();
  await served(['--data', data, '--ann', 'ivf', '--n-probe', '4', '--quantization', 'int8', '--rescore', '6']);
  t.deepEqual(await served(['--data', data]), { ann: { ...IVF_DEFAULTS, n_probe: 4 }, quantization: { kind: 'Int8', rescore: 6 } });
});

test('an explicit flag wins over the recorded setting and is recorded for the next start', async (t) => {
  const data = tempDir();
  await served(['--data', data, '--ann', 'hnsw', '--ef-search', '80']);
  t.deepEqual((await served(['--data', data, '--ef-search', '99'])).ann, { ...HNSW_DEFAULTS, ef_search: 99 });
  t.deepEqual((await served(['--data', data])).ann, { ...HNSW_DEFAULTS, ef_search: 99 });
  t.regex(fs.readFileSync(path.join(data, 'HEADER'), 'utf8'), /^ef_search 99$/m);
});

test('--ann none and --quantization none turn recorded settings off, for this start and the next', async (t) => {
  const data = tempDir();
  await served(['--data', data, '--ann', 'hnsw', '--quantization', 'binary']);
  t.deepEqual(await served(['--data', data, '--ann', 'none', '--quantization', 'none']), { ann: null, quantization: null });
  t.deepEqual(await served(['--data', data]), { ann: null, quantization: null });
});

const flagsOf = (c: RefusedCase) => Object.entries(c.settings).flatMap(([name, value]) => [`--${name.replace(/_/g, '-')}`, value]);

/** Runs each case against a store directory that does not exist yet; each must exit 2 naming its flag and leave no directory. */
async function refusesAll(t: import('ava').ExecutionContext, cases: RefusedCase[]): Promise<void> {
  const fresh = path.join(tempDir(), 'never-created');
  for (const c of cases) {
    const args = ['serve', '--port', '0', '--data', fresh, '--dimension', '4', ...(c.distance ? ['--distance', c.distance] : []), ...flagsOf(c)];
    const label = `${c.rule}: ${args.slice(7).join(' ')}`;
    const r = await runCli(args);
    t.is(r.code, 2, `${label}: ${r.stderr}`);
    const lines = r.stderr.trimEnd().split('\n');
    t.is(lines.length, 1, `${label}: ${r.stderr}`);
    t.true(lines[0].startsWith(`tessera: --${c.names.replace(/_/g, '-')} `), `${label}: ${lines[0]}`);
    t.true(lines[0].includes(quoted(c)), `${label}: ${lines[0]}`);
    t.false(r.stdout.includes('listening'), label);
  }
  t.false(fs.existsSync(fresh), 'a refused start creates no store directory');
}

// One test per rule, so the table's processes run two files' worth at a time rather than in one line.
for (const rule of new Set(REFUSED.map((c) => c.rule))) {
  test(`a bad index flag exits 2 naming the flag and the value, and creates nothing (${rule})`, (t) =>
    refusesAll(
      t,
      REFUSED.filter((c) => c.rule === rule),
    ));
}

test('a flag that does not apply to the recorded kind exits 2 and leaves the store exactly as it was', async (t) => {
  const data = tempDir();
  await served(['--data', data, '--ann', 'hnsw']);
  const files = fs.readdirSync(data).sort();
  const header = fs.readFileSync(path.join(data, 'HEADER'), 'utf8');
  const r = await runCli(['serve', '--port', '0', '--data', data, '--n-probe', '4']);
  t.is(r.code, 2);
  t.is(r.stderr, 'tessera: --n-probe is set to "4", but it applies only with ann ivf (the store records ann hnsw)\n');
  t.false(r.stdout.includes('listening'));
  t.deepEqual(fs.readdirSync(data).sort(), files);
  t.is(fs.readFileSync(path.join(data, 'HEADER'), 'utf8'), header);
});
