// A code chunk as a record of the collection: `{path}#{index}` with the chunk's attributes, the
// svc.* chunk attributes, the file's hash (what incremental ingestion compares) and the word forms
// BM25 indexes, plus the text its vector is embedded from.
import type { Value } from '../../types';
import type { CodeChunk } from './chunker';

/** The attributes BM25 searches: the chunk text, the doc comment, and the path's and symbol's words. */
export const FTS_FIELDS = ['svc.text', 'doc', 'path_words', 'symbol_words'] as const;
/** What /code-search reads back of a hit. */
export const HIT_ATTRS = ['path', 'language', 'symbol', 'kind', 'start_line', 'end_line'];
/** Characters of a chunk embedded at most: an embedding model's input is bounded. */
const EMBED_CHARS = 2000;

const strValue = (s: string): Value => ({ Str: s });
const intValue = (n: number): Value => ({ Int: n });

/** A Str attribute's string, else null. */
export const str = (v: Value | undefined): string | null => (v && typeof v === 'object' && 'Str' in v ? v.Str : null);
/** An Int attribute's number (they come back as bigint), else 0. */
export const int = (v: Value | undefined): number => (v && typeof v === 'object' && 'Int' in v ? Number(v.Int) : 0);

/**
 * An identifier or path with its words: `parseJson` -> `parseJson parse Json`, `lib/read_file.ts`
 * -> `lib/read_file.ts lib read file ts`. The analyzer splits at `_`, `/` and `.` but not inside
 * camelCase, so `parse json` finds `parseJson` through these words and `parsejson` through the whole.
 */
export function withWords(name: string): string {
  const words = name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ');
  return words === name ? name : `${name} ${words}`;
}

export function chunkAttrs(c: CodeChunk, fileHash: string): Record<string, Value> {
  const attrs: Record<string, Value> = {
    path: strValue(c.path),
    path_words: strValue(withWords(c.path)),
    start_line: intValue(c.start_line),
    end_line: intValue(c.end_line),
    doc: strValue(c.doc),
    file_hash: strValue(fileHash),
    'svc.text': strValue(c.text),
    'svc.parent_id': strValue(c.path),
    'svc.chunk_index': intValue(c.index),
    'svc.char_start': intValue(c.char_start),
  };
  // Absent rather than Null: /code-search answers null for either.
  if (c.language !== null) attrs.language = strValue(c.language);
  if (c.kind !== null) attrs.kind = strValue(c.kind);
  if (c.symbol !== null) {
    attrs.symbol = strValue(c.symbol);
    attrs.symbol_words = strValue(withWords(c.symbol));
  }
  return attrs;
}

/** The text a chunk's vector is embedded from: where it is and what it is, then its text (doc included). */
export function embeddedText(c: CodeChunk): string {
  const head = [c.path, c.kind, c.symbol].filter((s) => s !== null).join(' ');
  return `${head}\n${c.text}`.slice(0, EMBED_CHARS);
}
