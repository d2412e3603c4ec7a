// Schemas: the check of a JSON body a route parses itself, carrying the JSON Schema of what it
// accepts, so the API description is built from the very definition that validates; and the body
// parser every such route shares. Bodies carrying Values are parsed by the core instead.
import { HttpError } from './errors';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), as a plain JSON object. */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * Checks a parsed JSON value and returns it typed, or throws a 400 naming where it went wrong
 * (`at` is the JSON path so far, e.g. `body.names[2]`) and what was expected. `json` describes
 * exactly the values the check accepts.
 */
export interface Schema<T> {
  (value: unknown, at: string): T;
  readonly json: JsonSchema;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The 400 message of a JSON text JSON.parse refused with `err`. */
export type DescribeMalformed = (text: string, err: unknown) => string;

/** JSON.parse's own words; a server's assembly gives the core's (lib/json_syntax.ts), which say where. */
export const parserMessage: DescribeMalformed = (_text, err) => `malformed JSON: ${err instanceof Error ? err.message : String(err)}`;

/** Decodes strict UTF-8, parses JSON and applies the schema; every failure is a 400. */
export function parseJson<T>(bytes: Uint8Array, schema: Schema<T>, describe: DescribeMalformed = parserMessage): T {
  if (bytes.length === 0) throw new HttpError(400, 'request body is empty; send a JSON body');
  let textBody: string;
  try {
    textBody = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, 'request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(textBody);
  } catch (err) {
    throw new HttpError(400, describe(textBody, err));
  }
  return schema(value, 'body');
}
