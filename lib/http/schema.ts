// Schemas: small checks for the JSON bodies TypeScript parses itself; a failure is a 400 naming
// the field. Bodies carrying Values are parsed by the core instead.
import { HttpError } from './errors';

/**
 * Checks a parsed JSON value and returns it typed, or throws a 400 naming where it went wrong
 * (`at` is the JSON path so far, e.g. `body.names[2]`) and what was expected.
 */
export type Schema<T> = (value: unknown, at: string) => T;

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

const fail = (at: string, expected: string, got: unknown): never => {
  throw new HttpError(400, `${at} must be ${expected}, got ${describe(got)}`);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const string: Schema<string> = (v, at) => (typeof v === 'string' ? v : fail(at, 'a string', v));

export const arrayOf =
  <T>(item: Schema<T>): Schema<T[]> =>
  (v, at) => {
    if (!Array.isArray(v)) return fail(at, 'an array', v);
    v.forEach((e, i) => {
      item(e, `${at}[${i}]`);
    });
    return v as T[];
  };

/** An object used as a map (any keys, every value of one type). */
export const mapOf =
  <T>(value: Schema<T>, expected: string): Schema<Record<string, T>> =>
  (v, at) => {
    if (!isPlainObject(v)) return fail(at, expected, v);
    for (const [k, e] of Object.entries(v)) value(e, `${at}.${k}`);
    return v as Record<string, T>;
  };

type Shaped<S extends Record<string, Schema<unknown>>> = { [K in keyof S]: ReturnType<S[K]> };

/** An object with exactly these fields, all required; an unknown field is refused so typos surface. */
export const object =
  <S extends Record<string, Schema<unknown>>>(shape: S): Schema<Shaped<S>> =>
  (v, at) => {
    const expected = `an object with ${Object.keys(shape).map((k) => `"${k}"`).join(', ')}`;
    if (!isPlainObject(v)) return fail(at, expected, v);
    for (const k of Object.keys(v)) {
      if (!Object.hasOwn(shape, k)) throw new HttpError(400, `${at}.${k} is not a known field; send ${expected}`);
    }
    for (const [k, check] of Object.entries(shape)) {
      if (!Object.hasOwn(v, k)) throw new HttpError(400, `${at}.${k} is required; send ${expected}`);
      check(v[k], `${at}.${k}`);
    }
    return v as Shaped<S>;
  };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes strict UTF-8, parses JSON and applies the schema; every failure is a 400. */
export function parseJson<T>(bytes: Uint8Array, schema: Schema<T>): T {
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
    throw new HttpError(400, `malformed JSON: ${(err as Error).message}`);
  }
  return schema(value, 'body');
}
