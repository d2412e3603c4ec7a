import test, { type ImplementationFn } from 'ava';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import * as path from 'node:path';

// The one place that decides what a test does when it needs a tool beyond Node, npm, cmake and a
// C++ compiler. On a developer's machine a missing tool skips the test, visibly, naming the Debian
// package to install; under CI (CI set, as .ci/run does) it fails, so a broken install step in
// .ci/run cannot hide a test behind a skip.

const clangArch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;

/** Where a tool comes from; with `clangFinds` it is a library, present when clang++ on PATH finds that file. */
interface ToolSource {
  debianPackage: string;
  clangFinds?: string;
}

/** Every optional tool a test may need: a command on PATH unless it says otherwise. */
const optionalTools = {
  'aarch64-linux-gnu-g++': { debianPackage: 'g++-aarch64-linux-gnu' },
  'qemu-aarch64': { debianPackage: 'qemu-user' },
  clang: { debianPackage: 'clang' },
  'clang++': { debianPackage: 'clang' },
  'libclang_rt.fuzzer': { debianPackage: 'libclang-rt-14-dev', clangFinds: `libclang_rt.fuzzer-${clangArch}.a` },
  'clang-format': { debianPackage: 'clang-format' },
  promtool: { debianPackage: 'prometheus' },
  chromium: { debianPackage: 'chromium' },
  curl: { debianPackage: 'curl' },
  // A single-node Ceph object gateway (test/harness/radosgw.ts; scripts/radosgw-deps.sh installs them).
  'ceph-mon': { debianPackage: 'ceph-mon' },
  'ceph-osd': { debianPackage: 'ceph-osd' },
  radosgw: { debianPackage: 'radosgw' },
  ceph: { debianPackage: 'ceph-common' },
  'ceph-authtool': { debianPackage: 'ceph-common' },
  'radosgw-admin': { debianPackage: 'ceph-common' },
  monmaptool: { debianPackage: 'ceph-base' },
} satisfies Record<string, ToolSource>;

export type OptionalTool = keyof typeof optionalTools;

/** What a test needing `tools` does in this environment, and why. */
export type ToolPlan = { action: 'run' } | { action: 'skip' | 'fail'; notice: string };

/** True when `env` says we run under CI (the convention AVA and most CI services share). */
export function underCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

function onPath(command: string, searchPath: string): boolean {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** True when clang++ on `searchPath` resolves `file` to a file (it echoes the bare name when it cannot). */
function clangFinds(file: string, searchPath: string): boolean {
  if (!onPath('clang++', searchPath)) return false;
  try {
    const found = execFileSync('clang++', [`-print-file-name=${file}`], { env: { PATH: searchPath }, encoding: 'utf8' }).trim();
    return path.isAbsolute(found) && existsSync(found);
  } catch {
    return false;
  }
}

/** The tools of `tools` missing from `env.PATH` (a command) or that clang++ there cannot find (a library). */
export function missingTools(tools: readonly OptionalTool[], env: NodeJS.ProcessEnv): OptionalTool[] {
  const searchPath = env.PATH ?? '';
  return tools.filter((tool) => {
    const source: ToolSource = optionalTools[tool];
    return source.clangFinds ? !clangFinds(source.clangFinds, searchPath) : !onPath(tool, searchPath);
  });
}

export function planFor(tools: readonly OptionalTool[], env: NodeJS.ProcessEnv): ToolPlan {
  const missing = missingTools(tools, env);
  if (missing.length === 0) return { action: 'run' };
  const named = missing.map((tool) => `${tool} (Debian package ${optionalTools[tool].debianPackage})`).join(', ');
  const install = [...new Set(missing.map((tool) => optionalTools[tool].debianPackage))].join(' ');
  const notice = `missing tool: ${named}; install with: apt-get install ${install}`;
  return { action: underCi(env) ? 'fail' : 'skip', notice };
}

/**
 * Declares an AVA test that needs `tools` (`serial`: one that runs alone among its file's tests).
 * When one is missing it becomes a skipped test whose title carries the notice (and the notice is
 * printed), or under CI a test failing with it.
 */
export function testNeedingTools(tools: readonly OptionalTool[], title: string, implementation: ImplementationFn<[]>, { serial = false } = {}): void {
  const declare = serial ? test.serial : test;
  const plan = planFor(tools, process.env);
  if (plan.action === 'run') {
    declare(title, implementation);
  } else if (plan.action === 'skip') {
    console.warn(`skipped: ${title}: ${plan.notice}`);
    declare.skip(`${title} [skipped: ${plan.notice}]`, implementation);
  } else {
    declare(title, (t) => t.fail(`${plan.notice} (CI is set, so a missing tool fails instead of skipping)`));
  }
}
