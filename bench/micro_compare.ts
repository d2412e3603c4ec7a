// bench:micro's judge: holds a run (the JSON object on the last line of a file) against the
// committed baseline of its kind of machine and exits 1 when a case's ratio exceeds the baseline's
// by more than the tolerance. `--update` records that kind's baseline from one or more runs (each
// case's median ratio, with the runs' min and max beside it).
//
// A kind of machine is its architecture and the kernel family the core chose at load (the kernel
// cases' ratios depend on the instruction set, and a runner without AVX-512 is a different
// machine). A kind with no baseline yet passes with a notice: its first CI run uploads the JSON
// to record one from.
//
// usage: node dist/bench/micro_compare.js RESULT.json [--baseline FILE]
//        node dist/bench/micro_compare.js --update RESULT.json... [--baseline FILE]
import * as fs from 'node:fs';
import * as path from 'node:path';

/** bench/micro-baseline.json of the checkout this file runs from (compiled into dist/bench/ or not). */
function defaultBaseline(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'bench', 'micro-baseline.json');
    if (fs.existsSync(file) || path.dirname(dir) === dir) return file;
  }
}

/** What compare reads of a bench:micro result. */
export interface MicroResult {
  arch: string;
  kernels: string;
  cases: Record<string, { ratio: number }>;
  machine?: { cpu_model?: string; node?: string };
}

export interface CaseBaseline {
  /** The median ratio over the recorded runs. */
  ratio: number;
  runs_min: number;
  runs_max: number;
}

export interface Baselines {
  /** A run fails when a case's ratio exceeds baseline x (1 + tolerance). */
  tolerance: number;
  tolerance_why: string;
  /** By machine kind: `${arch}/${kernels}`. */
  machines: Record<string, { cpu_model: string; node: string; runs: number; cases: Record<string, CaseBaseline> }>;
}

export const machineKind = (r: MicroResult): string => `${r.arch}/${r.kernels}`;

/** The bench's result: the last non-empty line of its captured stdout. */
export function readResult(file: string): MicroResult {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  if (!lines.length) throw new Error(`${file} is empty`);
  return JSON.parse(lines[lines.length - 1]) as MicroResult;
}

/** One line per case and whether the run passes. */
export function compare(result: MicroResult, baselines: Baselines): { lines: string[]; ok: boolean } {
  const kind = machineKind(result);
  const base = baselines.machines[kind];
  if (!base) return { lines: [`no baseline for ${kind}: nothing to compare (record one with --update from this run's JSON)`], ok: true };
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const lines = [`${kind} against the baseline of ${base.runs} runs on ${base.cpu_model}, tolerance ${pct(baselines.tolerance)}`];
  let ok = true;
  for (const [name, b] of Object.entries(base.cases)) {
    const got = result.cases[name];
    if (!got) {
      ok = false;
      lines.push(`FAIL ${name}: not measured by this run`);
      continue;
    }
    const change = got.ratio / b.ratio - 1;
    const failed = change > baselines.tolerance;
    ok &&= !failed;
    lines.push(`${failed ? 'FAIL' : 'ok  '} ${name.padEnd(20)} ratio ${got.ratio.toFixed(4)}  baseline ${b.ratio.toFixed(4)}  ${pct(change)}`);
  }
  for (const name of Object.keys(result.cases)) if (!base.cases[name]) lines.push(`new  ${name}: no baseline yet`);
  return { lines, ok };
}

/** This kind's baseline from runs of it: each case's median ratio, and the runs' spread. */
export function record(results: MicroResult[], baselines: Baselines): Baselines {
  const kind = machineKind(results[0]);
  const other = results.find((r) => machineKind(r) !== kind);
  if (other) throw new Error(`runs of different machines: ${kind} and ${machineKind(other)}`);
  const cases: Record<string, CaseBaseline> = {};
  for (const name of Object.keys(results[0].cases)) {
    const ratios = results.map((r) => r.cases[name]?.ratio).filter((x) => x !== undefined);
    ratios.sort((a, b) => a - b);
    cases[name] = { ratio: ratios[Math.floor((ratios.length - 1) / 2)], runs_min: ratios[0], runs_max: ratios[ratios.length - 1] };
  }
  const m = results[0].machine ?? {};
  return {
    ...baselines,
    machines: { ...baselines.machines, [kind]: { cpu_model: m.cpu_model ?? 'unknown', node: m.node ?? 'unknown', runs: results.length, cases } },
  };
}

function main(args: string[]): number {
  const at = args.indexOf('--baseline');
  const baselineFile = at >= 0 ? args[at + 1] : defaultBaseline();
  const update = args.includes('--update');
  const files = args.filter((a, i) => a !== '--update' && (at < 0 || (i !== at && i !== at + 1)));
  if (!files.length || (!update && files.length > 1)) {
    process.stderr.write('usage: micro_compare.js RESULT.json [--baseline FILE] | --update RESULT.json... [--baseline FILE]\n');
    return 2;
  }
  const baselines = JSON.parse(fs.readFileSync(baselineFile, 'utf8')) as Baselines;
  const results = files.map(readResult);
  if (update) {
    const next = record(results, baselines);
    fs.writeFileSync(baselineFile, `${JSON.stringify(next, null, 2)}\n`);
    for (const [name, c] of Object.entries(next.machines[machineKind(results[0])].cases))
      console.log(`${name.padEnd(20)} ratio ${c.ratio}  (runs ${c.runs_min} to ${c.runs_max})`);
    console.log(`recorded ${machineKind(results[0])} from ${results.length} runs in ${baselineFile}`);
    return 0;
  }
  const { lines, ok } = compare(results[0], baselines);
  for (const line of lines) console.log(line);
  console.log(ok ? 'micro benchmarks: no regression beyond the tolerance' : 'micro benchmarks: regression beyond the tolerance');
  return ok ? 0 : 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
