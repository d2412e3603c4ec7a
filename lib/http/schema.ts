// Schemas: small checks for the JSON bodies TypeScript parses itself; a failure is a 400 naming
// the field. Each check carries the JSON Schema of what it accepts, so the API description is
// built from the very definition that validates (one source of truth). Bodies carrying Values
// are parsed by the core instead.
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

const schema = <T>(json: JsonSchema, check: (value: unknown, at: string) => T): Schema<T> => Object.assign(check, { json });

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

const fail = (at: string, expected: string, got: unknown): never => {
  throw new HttpError(400, `${at} must be ${expected}, got ${kindOf(got)}`);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const string: Schema<string> = schema({ type: 'string' }, (v, at) => (typeof v === 'string' ? v : fail(at, 'a string', v)));

export const boolean: Schema<boolean> = schema({ type: 'boolean' }, (v, at) => (typeof v === 'boolean' ? v : fail(at, 'true or false', v)));

export const arrayOf = <T>(item: Schema<T>): Schema<T[]> =>
  schema({ type: 'array', items: item.json }, (v, at) => {
    if (!Array.isArray(v)) return fail(at, 'an array', v);
    v.forEach((e, i) => {
      item(e, `${at}[${i}]`);
    });
    return v as T[];
  });

/** An object used as a map (any keys, every value of one type). */
export const mapOf = <T>(value: Schema<T>, expected: string): Schema<Record<string, T>> =>
  schema({ type: 'object', additionalProperties: value.json }, (v, at) => {
    if (!isPlainObject(v)) return fail(at, expected, v);
    for (const [k, e] of Object.entries(v)) value(e, `${at}.${k}`);
    return v as Record<string, T>;
  });

type Shape = Record<string, Schema<unknown>>;
type Shaped<R extends Shape, O extends Shape> = { [K in keyof R]: ReturnType<R[K]> } & { [K in keyof O]?: ReturnType<O[K]> };

/**
 * An object with exactly these fields: `required` ones, and `optional` ones that may be left out;
 * an unknown field is refused so typos surface.
 */
export const object = <R extends Shape, O extends Shape = Record<never, never>>(required: R, optional: O = {} as O): Schema<Shaped<R, O>> => {
  const names = (shape: Shape) =>
    Object.keys(shape)
      .map((k) => `"${k}"`)
      .join(', ');
  const expected = `an object with ${names(required)}${Object.keys(optional).length > 0 ? ` and optionally ${names(optional)}` : ''}`;
  const properties = Object.fromEntries(Object.entries({ ...required, ...optional }).map(([k, s]) => [k, s.json]));
  return schema({ type: 'object', properties, required: Object.keys(required), additionalProperties: false }, (v, at) => {
    if (!isPlainObject(v)) return fail(at, expected, v);
    for (const k of Object.keys(v)) {
      if (!Object.hasOwn(required, k) && !Object.hasOwn(optional, k)) throw new HttpError(400, `${at}.${k} is not a known field; send ${expected}`);
    }
    for (const [k, check] of Object.entries(required)) {
      if (!Object.hasOwn(v, k)) throw new HttpError(400, `${at}.${k} is required; send ${expected}`);
      check(v[k], `${at}.${k}`);
    }
    for (const [k, check] of Object.entries(optional)) if (Object.hasOwn(v, k)) check(v[k], `${at}.${k}`);
    return v as Shaped<R, O>;
  });
};

/** The same check, its JSON Schema annotated (`description`, `default`) for the API description. */
export const annotated = <T>(s: Schema<T>, annotations: { description?: string; default?: unknown }): Schema<T> =>
  schema({ ...s.json, ...annotations }, (v, at) => s(v, at));

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
