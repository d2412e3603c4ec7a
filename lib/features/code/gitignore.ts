// .gitignore rules, as git applies them to a tree walk: every .gitignore from the root down to a
// path's directory, the last matching rule winning, patterns relative to their file's directory.
//
// Supported: blank lines and `#` comments; `\#` and `\!` escapes; trailing spaces trimmed unless
// escaped with `\`; `!` negation; a trailing `/` matching directories only; a `/` at the start or
// in the middle anchoring the pattern to its .gitignore's directory (else it matches at any depth);
// `*`, `?`, `[...]` and `[!...]` classes; `**/` leading, `/**` trailing, `/**/` in the middle.
// A file under an ignored directory cannot be re-included (git's rule; the walk never enters it).
// Not supported: .git/info/exclude, core.excludesFile, case-insensitive matching, and the rule that
// files git already tracks are never ignored (the walk reads no git index).

interface Rule {
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

/** The rules of one .gitignore file, matched against paths relative to its directory. */
export class IgnoreFile {
  private readonly rules: Rule[];

  constructor(text: string) {
    this.rules = text.split(/\r?\n/).flatMap((line) => {
      const rule = parseRule(line);
      return rule ? [rule] : [];
    });
  }

  /** true: ignored, false: re-included by a negation, undefined: no rule matched. */
  verdict(relative: string, isDir: boolean): boolean | undefined {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i];
      if (r.dirOnly && !isDir) continue;
      if (r.regex.test(relative)) return !r.negate;
    }
    return undefined;
  }
}

function parseRule(line: string): Rule | null {
  let p = line.replace(/(?<!\\)\s+$/, '');
  if (p === '' || p.startsWith('#')) return null;
  const negate = p.startsWith('!');
  if (negate) p = p.slice(1);
  if (p.startsWith('\\#') || p.startsWith('\\!')) p = p.slice(1);
  const dirOnly = p.endsWith('/');
  if (dirOnly) p = p.slice(0, -1);
  if (p === '') return null;
  const anchored = p.includes('/');
  if (p.startsWith('/')) p = p.slice(1);
  const body = globToRegex(p);
  return { regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negate, dirOnly };
}

/** A gitignore glob as a regular expression body over `/`-separated relative paths. */
function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*' && (i === 0 || glob[i - 1] === '/') && (i + 2 === glob.length || glob[i + 2] === '/')) {
      // `**/` any leading directories; `/**` at the end everything inside.
      if (i + 2 === glob.length) out += '.*';
      else out += '(?:.*/)?';
      i += 2;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) out += '\\[';
      else {
        let set = glob.slice(i + 1, close);
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        out += `[${set.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) out += literal(glob[++i]);
    else out += literal(c);
  }
  return out;
}

const literal = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
