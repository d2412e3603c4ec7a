// Tree-sitter parsers, one per language, each loaded from @repomix/tree-sitter-wasms's grammar file
// the first time a file of that language is chunked (web-tree-sitter 0.27.1; the unscoped
// tree-sitter-wasms package does not load in it). Loading is asynchronous; parsing is synchronous
// on the calling thread.
import * as path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

let runtime: Promise<void> | null = null;
const parsers = new Map<string, Promise<Parser>>();

function grammarFile(grammar: string): string {
  return path.join(path.dirname(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out', `tree-sitter-${grammar}.wasm`);
}

/** The parser of one grammar, loaded once; a failed load is retried by the next call. */
export function parserFor(grammar: string): Promise<Parser> {
  let parser = parsers.get(grammar);
  if (!parser) {
    runtime ??= Parser.init().catch((e) => {
      runtime = null;
      throw e;
    });
    parser = runtime.then(async () => {
      const p = new Parser();
      p.setLanguage(await Language.load(grammarFile(grammar)));
      return p;
    });
    parser.catch(() => parsers.delete(grammar));
    parsers.set(grammar, parser);
  }
  return parser;
}
