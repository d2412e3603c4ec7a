import test from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { root } from '../../lib/native';
import { missingTools, planFor, underCi } from './optional_tools';

const dir = mkdtempSync(path.join(tmpdir(), 'tessera-tools-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

/** A directory holding one executable file named `tool` (a stand-in for the real tool running `script`). */
function binWith(name: string, tool: string, script = ''): string {
  const bin = path.join(dir, name);
  mkdirSync(bin);
  writeFileSync(path.join(bin, tool), `#!/bin/sh\n${script}`);
  chmodSync(path.join(bin, tool), 0o755);
  return bin;
}

const emptyBin = path.join(dir, 'empty');
mkdirSync(emptyBin);
const qemuBin = binWith('qemu', 'qemu-aarch64');

test('CI counts as set unless empty, "false" or "0"', (t) => {
  t.true(underCi({ CI: 'true' }));
  t.true(underCi({ CI: '1' }));
  t.false(underCi({}));
  t.false(underCi({ CI: '' }));
  t.false(underCi({ CI: 'false' }));
  t.false(underCi({ CI: '0' }));
});

test('a tool counts as present only as an executable file on PATH', (t) => {
  const plain = path.join(dir, 'plain');
  mkdirSync(plain);
  writeFileSync(path.join(plain, 'qemu-aarch64'), '');
  mkdirSync(path.join(plain, 'aarch64-linux-gnu-g++'));
  const tools = ['qemu-aarch64', 'aarch64-linux-gnu-g++'] as const;
  t.deepEqual(missingTools(tools, { PATH: plain }), ['qemu-aarch64', 'aarch64-linux-gnu-g++']);
  t.deepEqual(missingTools(tools, { PATH: [plain, qemuBin].join(path.delimiter) }), ['aarch64-linux-gnu-g++']);
  t.deepEqual(missingTools(tools, {}), ['qemu-aarch64', 'aarch64-linux-gnu-g++']);
});

test('a library counts as present only when clang++ on PATH finds its file', (t) => {
  const runtime = path.join(dir, 'libclang_rt.fuzzer.a');
  writeFileSync(runtime, '');
  const finds = binWith('clang-finds', 'clang++', `echo ${runtime}\n`);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  const echoesName = binWith('clang-echoes-name', 'clang++', 'echo "${1#-print-file-name=}"\n');
  t.deepEqual(missingTools(['libclang_rt.fuzzer'], { PATH: finds }), []);
  t.deepEqual(missingTools(['libclang_rt.fuzzer'], { PATH: echoesName }), ['libclang_rt.fuzzer']);
  t.deepEqual(missingTools(['libclang_rt.fuzzer'], { PATH: emptyBin }), ['libclang_rt.fuzzer']);
  t.deepEqual(planFor(['libclang_rt.fuzzer'], { PATH: echoesName, CI: 'true' }), {
    action: 'fail',
    notice: 'missing tool: libclang_rt.fuzzer (Debian package libclang-rt-14-dev); install with: apt-get install libclang-rt-14-dev',
  });
});

test('a missing tool is named with its Debian package: skipped outside CI, failed under CI', (t) => {
  const tools = ['aarch64-linux-gnu-g++', 'qemu-aarch64'] as const;
  const notice =
    'missing tool: aarch64-linux-gnu-g++ (Debian package g++-aarch64-linux-gnu), qemu-aarch64 (Debian package qemu-user); ' +
    'install with: apt-get install g++-aarch64-linux-gnu qemu-user';
  t.deepEqual(planFor(tools, { PATH: emptyBin }), { action: 'skip', notice });
  t.deepEqual(planFor(tools, { PATH: emptyBin, CI: 'true' }), { action: 'fail', notice });
  t.deepEqual(planFor([], { PATH: emptyBin, CI: 'true' }), { action: 'run' });
});

/** Runs the fixture test file in a nested AVA with the given PATH and CI. */
function runFixture(bin: string, ci: string | undefined): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin };
  delete env.CI;
  if (ci !== undefined) env.CI = ci;
  const ava = path.join(root, 'node_modules/ava/entrypoints/cli.mjs');
  const fixture = path.join(__dirname, 'needs_qemu.fixture.js');
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [ava, fixture], { cwd: root, env });
    let output = '';
    proc.stdout.on('data', (d) => (output += d));
    proc.stderr.on('data', (d) => (output += d));
    proc.on('close', (code) => resolve({ code, output }));
  });
}

test('through AVA: outside CI a missing tool is a visible skip and the run passes', async (t) => {
  const { code, output } = await runFixture(emptyBin, undefined);
  t.is(code, 0, output);
  t.regex(output, /\[skip\] fixture needing qemu-aarch64 \[skipped: missing tool: qemu-aarch64 \(Debian package qemu-user\)/);
  t.regex(output, /1 test skipped/);
});

test('through AVA: under CI a missing tool fails the run with the same notice', async (t) => {
  const { code, output } = await runFixture(emptyBin, 'true');
  t.is(code, 1, output);
  t.regex(output, /missing tool: qemu-aarch64 \(Debian package qemu-user\); install with: apt-get install qemu-user/);
  t.regex(output, /1 test failed/);
});

test('through AVA: a present tool runs the test, under CI too', async (t) => {
  const { code, output } = await runFixture(qemuBin, 'true');
  t.is(code, 0, output);
  t.regex(output, /1 test passed/);
});
