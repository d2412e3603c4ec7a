// bench:micro's comparison (bench/micro_compare.ts): a ratio beyond the tolerance fails, a kind of
// machine without a baseline passes with a notice, and --update records a kind from runs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { type Baselines, type MicroResult, compare, record } from '../../bench/micro_compare';

const run = (arch: string, ratios: Record<string, number>): MicroResult => ({
  arch,
  kernels: arch === 'x64' ? 'avx2' : 'neon',
  cases: Object.fromEntries(Object.entries(ratios).map(([name, ratio]) => [name, { ratio }])),
  machine: { cpu_model: 'test cpu', node: 'v20' },
});

const empty: Baselines = { tolerance: 0.25, tolerance_why: 'test', machines: {} };
const baselines = record([run('x64', { parse: 1, dispatch: 2 }), run('x64', { parse: 1.2, dispatch: 1.8 }), run('x64', { parse: 0.9, dispatch: 2.2 })], empty);

test('a baseline is each case median over the runs, with their spread', (t) => {
  t.deepEqual(baselines.machines['x64/avx2'].cases, {
    parse: { ratio: 1, runs_min: 0.9, runs_max: 1.2 },
    dispatch: { ratio: 2, runs_min: 1.8, runs_max: 2.2 },
  });
  t.is(baselines.machines['x64/avx2'].runs, 3);
});

test('a run within the tolerance passes; one case beyond it fails the run', (t) => {
  t.true(compare(run('x64', { parse: 1.25, dispatch: 1.5 }), baselines).ok);
  const slow = compare(run('x64', { parse: 1.26, dispatch: 2 }), baselines);
  t.false(slow.ok);
  t.true(slow.lines.some((l) => l.startsWith('FAIL parse')));
});

test('a case of the baseline the run did not measure fails; a new case passes', (t) => {
  t.false(compare(run('x64', { parse: 1 }), baselines).ok);
  const added = compare(run('x64', { parse: 1, dispatch: 2, tokenizer: 9 }), baselines);
  t.true(added.ok);
  t.true(added.lines.some((l) => l.includes('tokenizer: no baseline yet')));
});

test('a machine kind without a baseline passes and says so', (t) => {
  const { ok, lines } = compare(run('arm64', { parse: 100 }), baselines);
  t.true(ok);
  t.deepEqual(lines, ["no baseline for arm64/neon: nothing to compare (record one with --update from this run's JSON)"]);
});

test('the command line exits 1 on a regression, 0 otherwise, and --update keeps the other kinds', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-micro-compare-'));
  try {
    const script = path.join(__dirname, '..', '..', 'bench', 'micro_compare.js');
    const file = path.join(dir, 'baseline.json');
    fs.writeFileSync(file, JSON.stringify(baselines));
    // The bench's stdout as captured: the result is its last line.
    const write = (name: string, r: MicroResult) => {
      fs.writeFileSync(path.join(dir, name), `progress\n${JSON.stringify(r)}\n`);
      return path.join(dir, name);
    };
    const cli = (...args: string[]) => spawnSync(process.execPath, [script, ...args, '--baseline', file], { encoding: 'utf8' });
    t.is(cli(write('fast.json', run('x64', { parse: 1, dispatch: 2 }))).status, 0);
    const slow = cli(write('slow.json', run('x64', { parse: 2, dispatch: 2 })));
    t.is(slow.status, 1, slow.stdout);
    t.regex(slow.stdout, /FAIL parse/);
    t.is(cli(write('arm.json', run('arm64', { parse: 2 }))).status, 0);
    t.is(cli('--update', path.join(dir, 'arm.json')).status, 0);
    // Without --baseline it reads the committed bench/micro-baseline.json, which has no riscv64.
    const committed = spawnSync(process.execPath, [script, write('riscv.json', run('riscv64', { parse: 1 }))], { encoding: 'utf8' });
    t.is(committed.status, 0, committed.stderr);
    t.regex(committed.stdout, /no baseline for riscv64\//);
    const updated = JSON.parse(fs.readFileSync(file, 'utf8')) as Baselines;
    t.deepEqual(Object.keys(updated.machines).sort(), ['arm64/neon', 'x64/avx2']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
