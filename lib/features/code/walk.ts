// The files of a tree to ingest as code: every regular file not ignored by the .gitignore files on
// its way (gitignore.ts), never inside `.git` or `node_modules`, and not larger than a bound.
// Symbolic links are not followed. Paths are relative to the root, `/`-separated, sorted.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { IgnoreFile } from './gitignore';

const ALWAYS_SKIPPED = ['.git', 'node_modules'];

export interface WalkedFile {
  /** Relative to the root, `/`-separated: the file's id in the collection. */
  path: string;
  absolute: string;
}

export interface Walk {
  files: WalkedFile[];
  /** Files above the size bound. */
  tooLarge: number;
}

interface Scope {
  /** The directory of the .gitignore, relative to the root ('' for the root). */
  base: string;
  rules: IgnoreFile;
}

export function walkTree(root: string, maxFileBytes: number): Walk {
  const out: Walk = { files: [], tooLarge: 0 };
  visit(root, '', [], maxFileBytes, out);
  out.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

function visit(root: string, dir: string, scopes: Scope[], maxFileBytes: number, out: Walk): void {
  const absolute = path.join(root, dir);
  const entries = readdirSync(absolute, { withFileTypes: true });
  const own = entries.find((e) => e.name === '.gitignore' && e.isFile());
  const here = own ? [...scopes, { base: dir, rules: new IgnoreFile(readFileSync(path.join(absolute, '.gitignore'), 'utf8')) }] : scopes;
  for (const e of entries) {
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (!ALWAYS_SKIPPED.includes(e.name) && !ignored(here, rel, true)) visit(root, rel, here, maxFileBytes, out);
    } else if (e.isFile() && !ignored(here, rel, false)) {
      if (statSync(path.join(root, rel)).size > maxFileBytes) out.tooLarge++;
      else out.files.push({ path: rel, absolute: path.join(root, rel) });
    }
  }
}

/** The last verdict of the deepest .gitignore that has one (deeper files override shallower). */
function ignored(scopes: Scope[], rel: string, isDir: boolean): boolean {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const { base, rules } = scopes[i];
    const verdict = rules.verdict(base === '' ? rel : rel.slice(base.length + 1), isDir);
    if (verdict !== undefined) return verdict;
  }
  return false;
}

/** Git's own test: a NUL byte in the first 8 KiB makes a file binary. */
export const isBinary = (content: Buffer): boolean => content.subarray(0, 8192).includes(0);
