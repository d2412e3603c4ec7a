// The README's shell examples run, in order, against the store its first screen starts (`npm
// start`), so they cannot rot: every `curl` of every ```sh block answers 2xx. A block preceded by
// `<!-- not run by test/http/readme.test.ts: WHY -->` is left out, saying why.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { testNeedingTools } from '../harness/optional_tools';
import { startServer, tempDir } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const SKIP = /<!-- not run by test\/http\/readme\.test\.ts: .+ -->\n$/;

/** Each ```sh block that is run: its commands, a line ending in `\` joined with the next. */
function shellBlocks(markdown: string): string[][] {
  const blocks: string[][] = [];
  for (const m of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    if (SKIP.test(markdown.slice(0, m.index))) continue;
    blocks.push(
      m[1]
        .replace(/\\\n\s*/g, '')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
  }
  return blocks;
}

/** The `npm start` command's flags, serving a fresh directory instead of ./data. */
function startFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const flags = scripts.start.split(/\s+/);
  return flags.slice(flags.indexOf('serve') + 1).map((flag) => (flag === './data' ? tempDir() : flag));
}

testNeedingTools(['curl'], "every curl of the README's shell examples answers 2xx, in order, against the first screen's store", async (t) => {
  const server = await startServer(startFlags());
  t.teardown(() => server.stop());
  const blocks = shellBlocks(README);
  const functions = blocks.flat().filter((line) => /^\w+\(\) \{/.test(line));
  const curls = blocks.flat().filter((line) => line.startsWith('curl '));
  t.true(curls.length >= 10, `${curls.length} curl examples found`);
  const cwd = tempDir();
  for (const line of curls) {
    // --fail-with-body: a 4xx or 5xx exits non-zero and still prints the error the server gave.
    const command = line.replaceAll('localhost:8080', `127.0.0.1:${server.port}`).replace(/^curl -s /, 'curl -sS --fail-with-body ');
    const run = spawnSync('bash', ['-c', ['set -eo pipefail', ...functions, command].join('\n')], { cwd, encoding: 'utf8' });
    t.is(run.status, 0, `${line}\n${run.stdout.slice(0, 500)}${run.stderr}`);
  }
});
