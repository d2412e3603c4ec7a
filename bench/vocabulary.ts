// Real English words with real frequencies for synthetic text attributes, shared by the benches
// that need one (bench:filter, bench:open).
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Vocabulary {
  words: string[]; // by descending frequency in the source prose
  cumulative: Float64Array; // normalized cumulative frequency, for weighted draws
  source: string;
}

/**
 * Real English vocabulary with real frequencies: the lowercase words (3+ letters) of the JSDoc prose
 * in @types/node (a devDependency already installed for tsc), code fences, inline code and @tags
 * skipped. No word list (WordNet, /usr/share/dict) is installed here, and nlp-corpus is not a dependency.
 */
export function loadVocabulary(): Vocabulary {
  const pkg = require.resolve('@types/node/package.json');
  const dir = path.dirname(pkg);
  const version = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const f of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, f.name);
      if (f.isDirectory()) walk(p);
      else if (p.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(dir);
  files.sort();
  const freq = new Map<string, number>();
  for (const f of files) {
    let fence = false;
    for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
      const m = /^\s*\*\s?(.*)$/.exec(line);
      if (!m) continue;
      const text = m[1];
      if (text.trim().startsWith('```')) {
        fence = !fence;
        continue;
      }
      if (fence || text.startsWith('@')) continue;
      for (const w of text.replace(/`[^`]*`/g, ' ').split(/[^A-Za-z]+/)) if (/^[a-z]{3,}$/.test(w)) freq.set(w, (freq.get(w) ?? 0) + 1);
    }
  }
  const sorted = [...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = sorted.reduce((s, [, c]) => s + c, 0);
  const cumulative = new Float64Array(sorted.length);
  let acc = 0;
  sorted.forEach(([, c], i) => {
    acc += c / total;
    cumulative[i] = acc;
  });
  return { words: sorted.map(([w]) => w), cumulative, source: `@types/node@${version} JSDoc prose (${files.length} files)` };
}

export function drawIndex(cumulative: Float64Array, u: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
