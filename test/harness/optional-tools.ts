import test, { type ImplementationFn } from 'ava';
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

// The one place that decides what a test does when it needs a tool beyond Node, npm, cmake and a
// C++ compiler. On a developer's machine a missing tool skips the test, visibly, naming the Debian
// package to install; under CI (CI set, as .ci/run does) it fails, so a broken install step in
// .ci/run cannot hide a test behind a skip.

/** Every optional tool a test may need, with the Debian package that brings it. */
const debianPackage = {
  'aarch64-linux-gnu-g++': 'g++-aarch64-linux-gnu',
  'qemu-aarch64': 'qemu-user',
} as const;

export type OptionalTool = keyof typeof debianPackage;

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

/** The tools of `tools` that no directory of `env.PATH` holds as an executable file. */
export function missingTools(tools: readonly OptionalTool[], env: NodeJS.ProcessEnv): OptionalTool[] {
  return tools.filter((tool) => !onPath(tool, env.PATH ?? ''));
}

export function planFor(tools: readonly OptionalTool[], env: NodeJS.ProcessEnv): ToolPlan {
  const missing = missingTools(tools, env);
  if (missing.length === 0) return { action: 'run' };
  const named = missing.map((tool) => `${tool} (Debian package ${debianPackage[tool]})`).join(', ');
  const install = [...new Set(missing.map((tool) => debianPackage[tool]))].join(' ');
  const notice = `missing tool: ${named}; install with: apt-get install ${install}`;
  return { action: underCi(env) ? 'fail' : 'skip', notice };
}

/**
 * Declares an AVA test that needs `tools`. When one is missing it becomes a skipped test whose
 * title carries the notice (and the notice is printed), or under CI a test failing with it.
 */
export function testNeedingTools(tools: readonly OptionalTool[], title: string, implementation: ImplementationFn<[]>): void {
  const plan = planFor(tools, process.env);
  if (plan.action === 'run') {
    test(title, implementation);
  } else if (plan.action === 'skip') {
    console.warn(`skipped: ${title}: ${plan.notice}`);
    test.skip(`${title} [skipped: ${plan.notice}]`, implementation);
  } else {
    test(title, (t) => t.fail(`${plan.notice} (CI is set, so a missing tool fails instead of skipping)`));
  }
}
