// The 400 message of a JSON body that does not parse, in the core's words: the byte, line and
// column where the grammar breaks and what it expected there (the core walks the text again), so
// a body the library parses (feature routes, small route bodies) is refused as the core refuses it.
import { native } from './native';

/** `text` failed JSON.parse with `err`: where and why; the parser's own words when the grammar holds (a RangeError of a value, say). */
export function malformedJson(text: string, err: unknown): string {
  return native.jsonSyntaxError(text) ?? `malformed JSON: ${err instanceof Error ? err.message : String(err)}`;
}
