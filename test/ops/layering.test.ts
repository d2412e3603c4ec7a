// The layering check `npm test` runs (`npm run lint:deps`, dependency-cruiser with
// .dependency-cruiser.cjs): it reads every module of lib/, and a new import cycle or an import
// across a layer fails it, naming the rule.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../core/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

function cruise(cwd: string, globs: string[]) {
  const run = spawnSync(DEPCRUISE, [...globs, '--config', path.join(ROOT, '.dependency-cruiser.cjs')], { cwd, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** A tree of TypeScript files under lib/, in a fresh directory with the project's tsconfig. */
function tree(files: Record<string, string>): string {
  const dir = tempDir('layering');
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true }, include: ['lib/**/*.ts'] }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

test('lib/ holds to every rule, and the check reads all of it (not one module it could resolve)', (t) => {
  const { status, output } = cruise(ROOT, ['lib/**/*.ts', 'lib/**/*.mts']);
  t.is(status, 0, output);
  const cruised = Number(/(\d+) modules/.exec(output)?.[1]);
  t.true(cruised > 100, output);
});

test('an import cycle fails the check, naming the rule and the modules', (t) => {
  const dir = tree({
    'lib/store/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
    'lib/store/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  });
  const { status, output } = cruise(dir, ['lib/**/*.ts']);
  t.not(status, 0);
  t.regex(output, /no-circular: lib\/store\/a\.ts/);
});

test('the library importing a route module fails the check', (t) => {
  const dir = tree({
    'lib/api/route.ts': 'export const route = 1;\n',
    'lib/store/store.ts': "import { route } from '../api/route';\nexport const store = route;\n",
  });
  const { status, output } = cruise(dir, ['lib/**/*.ts']);
  t.not(status, 0);
  t.regex(output, /store-below-http: lib\/store\/store\.ts → lib\/api\/route\.ts/);
});

test('the route table importing the library fails the check: lib/contract is data below it', (t) => {
  const dir = tree({
    'lib/store/store.ts': 'export const store = 1;\n',
    'lib/contract/routes.ts': "import { store } from '../store/store';\nexport const routes = store;\n",
  });
  const { status, output } = cruise(dir, ['lib/**/*.ts']);
  t.not(status, 0);
  t.regex(output, /contract-is-data: lib\/contract\/routes\.ts → lib\/store\/store\.ts/);
});

test('tessera serve importing a family module fails the check: it mounts families through the Feature contract', (t) => {
  const dir = tree({
    'lib/features/cluster/node.ts': 'export const node = 1;\n',
    'lib/features/index.ts': 'export const FAMILIES = [];\n',
    'lib/cli/serve.ts':
      "import { node } from '../features/cluster/node';\nimport { FAMILIES } from '../features/index';\nexport const serve = [node, FAMILIES];\n",
  });
  const { status, output } = cruise(dir, ['lib/**/*.ts']);
  t.not(status, 0);
  t.regex(output, /serve-mounts-families-by-contract: lib\/cli\/serve\.ts → lib\/features\/cluster\/node\.ts/);
  t.notRegex(output, /lib\/features\/index\.ts\s*$/m);
});
