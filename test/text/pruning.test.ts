// Dynamic pruning (skipping documents that cannot reach the window) must never change a ranking:
// the exhaustive path (TESSERA_TEXT_EXHAUSTIVE=1) is the oracle.
import test from 'ava';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CHILD = path.join(__dirname, 'pruning_child.js');

async function rankings(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { stdout } = await run(process.execPath, [CHILD], { env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as string[];
}

test('pruned top-k rankings equal the exhaustive ones, ties and deletions included', async (t) => {
  const [pruned, exhaustive] = await Promise.all([rankings({ TESSERA_TEXT_EXHAUSTIVE: '0' }), rankings({ TESSERA_TEXT_EXHAUSTIVE: '1' })]);
  t.is(pruned.length, 400);
  t.true(exhaustive.filter((r) => r.length > 0).length > 300, 'most queries match something');
  for (let i = 0; i < pruned.length; i++) t.is(pruned[i], exhaustive[i], `query ${i}`);
});
