import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { stem } from 'porter2';
import { root } from '../../lib/native';
import { build, buildNativeTools } from './build';

// The core's English stemmer (libstemmer_c's Porter2), driven through the native `stem_words` tool
// (one lowercase word per line on stdin, one stem per line on stdout), against the `porter2` package
// over every distinct lowercase alphabetic word of the nlp-corpus texts.

/** Every distinct word of a-z only, after lowercasing, from the corpus documents. */
function corpusWords(): string[] {
  const dir = path.join(root, 'node_modules', 'nlp-corpus', 'builds');
  const words = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => /^doc-\d+\.json$/.test(f))) {
    const texts = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
    const strings: string[] = [];
    const walk = (x: unknown): void => {
      if (typeof x === 'string') strings.push(x);
      else if (Array.isArray(x)) x.forEach(walk);
      else if (x && typeof x === 'object') Object.values(x).forEach(walk);
    };
    walk(texts);
    for (const s of strings) for (const w of s.toLowerCase().split(/[^\p{L}]+/u)) if (/^[a-z]+$/.test(w)) words.add(w);
  }
  return [...words].sort();
}

test.before(buildNativeTools);

test('native stem_words agrees with the porter2 package on every word of the nlp-corpus vocabulary', (t) => {
  const words = corpusWords();
  t.true(words.length > 20_000, `${words.length} words`);
  const out = execFileSync(path.join(build, 'stem_words'), { input: `${words.join('\n')}\n`, encoding: 'utf8', maxBuffer: 256 << 20 });
  const stems = out.split('\n');
  if (stems[stems.length - 1] === '') stems.pop();
  t.is(stems.length, words.length, 'one stem per word');
  const mismatches = words.map((w, i) => [w, stems[i], stem(w)]).filter(([, got, want]) => got !== want);
  t.log(`${words.length} words tested, ${mismatches.length} mismatches`);
  t.deepEqual(mismatches.slice(0, 50), [], `${mismatches.length} of ${words.length} words stem differently (word, native, porter2)`);
});

test('native stem_words: the Porter2 special cases and short words', (t) => {
  const words = [
    'skis',
    'skies',
    'dying',
    'lying',
    'tying',
    'idly',
    'gently',
    'ugly',
    'early',
    'only',
    'singly',
    'sky',
    'news',
    'howe',
    'atlas',
    'cosmos',
    'bias',
    'andes',
    'inning',
    'outing',
    'canning',
    'herring',
    'earring',
    'proceed',
    'exceed',
    'succeed',
    'generate',
    'generously',
    'communism',
    'arsenal',
    'past',
    'universe',
    'a',
    'is',
    'by',
    'consign',
    'consigned',
    'consignment',
    'knightly',
    'kneel',
  ];
  const out = execFileSync(path.join(build, 'stem_words'), { input: `${words.join('\n')}\n`, encoding: 'utf8' })
    .split('\n')
    .slice(0, words.length);
  t.deepEqual(
    out,
    words.map((w) => stem(w)),
  );
});
