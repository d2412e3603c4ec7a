// Body validation by the published schemas: the JSON Schema /openapi.json publishes for a request
// body is the one that checks it (ajv, each schema compiled once, on first use). A failure is one
// message naming the field (`rollup.per_parent`) and what it must be, worded as the core's parsers
// word theirs (`unknown field 'x'; allowed: ...`).
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { shown, stringifyExact } from '../exact_json';
import { COMPONENTS } from './schemas';

const DOCUMENT = 'tessera';

/**
 * Two ajvs over the components: one that stops at the first error, to check with (a valid body
 * costs the least), and one that collects every error, run once a check failed, to say what is
 * wrong (mostSpecific). verbose: an error carries the value and the schema it failed.
 */
const ajvs: Partial<Record<'check' | 'explain', Ajv2020>> = {};
const compiled = new Map<string, ValidateFunction>();

function validatorOf(component: string, use: 'check' | 'explain'): ValidateFunction {
  const key = `${use} ${component}`;
  let validate = compiled.get(key);
  if (validate) return validate;
  if (!Object.hasOwn(COMPONENTS, component)) throw new Error(`no schema named ${component} among the components`);
  let ajv = ajvs[use];
  if (!ajv) {
    ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: use === 'explain', verbose: use === 'explain', formats: { int64: true } });
    ajv.addVocabulary(['components']);
    ajv.addSchema({ $id: DOCUMENT, components: { schemas: COMPONENTS } });
    ajvs[use] = ajv;
  }
  validate = ajv.compile({ $ref: `${DOCUMENT}#/components/schemas/${component}` });
  compiled.set(key, validate);
  return validate;
}

/** A JSON pointer under `at` as a field path: `/rollup/per_parent` is `rollup.per_parent`; array indexes are `[2]`. */
function fieldPath(at: string, pointer: string): string {
  let path = at;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

const article = (type: string) => (type === 'integer' ? 'a whole number' : type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`);
const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/** What an object of `schema` is, for "must be": its required and optional fields. */
function objectShape(schema: { properties?: object; required?: string[] } | undefined): string {
  const fields = Object.keys(schema?.properties ?? {});
  if (fields.length === 0) return 'an object';
  const required = schema?.required ?? [];
  const optional = fields.filter((f) => !required.includes(f));
  if (required.length === 0) return `an object with any of ${quoted(optional)}`;
  return `an object with ${quoted(required)}${optional.length > 0 ? ` and optionally ${quoted(optional)}` : ''}`;
}

function describe(e: ErrorObject, at: string): string {
  const field = fieldPath(at, e.instancePath);
  const subject = field === '' ? 'the body' : field;
  const under = (name: string) => (field === '' ? name : `${field}.${name}`);
  const got = `got ${shown(e.data)}`;
  switch (e.keyword) {
    case 'required':
      return `${under(e.params.missingProperty)} is required`;
    case 'additionalProperties':
      return `unknown field '${under(e.params.additionalProperty)}'; allowed: ${Object.keys(e.parentSchema?.properties ?? {}).join(', ')}`;
    case 'type':
      return e.params.type === 'object'
        ? `${subject} must be ${objectShape(e.parentSchema as { properties?: object; required?: string[] })}, ${got}`
        : `${subject} must be ${String(e.params.type).split(',').map(article).join(' or ')}, ${got}`;
    case 'enum':
      return `${subject} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, ${got}`;
    case 'minLength':
      return e.params.limit === 1 ? `${subject} must be a non-empty string` : `${subject} ${e.message}`;
    default:
      return `${subject} ${e.message}, ${got}`;
  }
}

/**
 * The error worth reporting: an unknown field first (a typo explains the rest); then the first
 * other, skipping what `anyOf: [schema, {type: 'null'}]` (a field that may be null) adds, as the
 * value's own failure says more than "must be null" or "must match a schema in anyOf".
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject {
  return (
    errors.find((e) => e.keyword === 'additionalProperties') ??
    errors.find((e) => e.keyword !== 'anyOf' && !(e.keyword === 'type' && e.params.type === 'null')) ??
    errors[0]
  );
}

/**
 * Whether a value is already as JSON carries it (a parsed HTTP body holding no Int): no bigint,
 * typed array, undefined or non-finite number. A walk with its own stack: a body may nest deeper
 * than the call stack goes.
 */
function isWireValue(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return false;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      for (const item of Object.values(v as object)) pending.push(item);
    } else {
      return false;
    }
  }
  return true;
}

/**
 * Why `value` is not a valid body by the component schema named `component`, or null when it is;
 * `at` is where the value sits (`rerank`), '' for a whole body.
 * The value is checked as it travels on the wire (a bigint as its digits; NaN or Infinity, which
 * JSON cannot carry, refused by name); one that already is (most bodies) is checked as it is.
 */
export function bodyProblem(component: string, value: unknown, at = ''): string | null {
  let wire = value;
  if (!isWireValue(value)) {
    try {
      wire = JSON.parse(stringifyExact(value).toString('utf8'));
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
  if (validatorOf(component, 'check')(wire)) return null;
  const explain = validatorOf(component, 'explain');
  explain(wire);
  return describe(mostSpecific(explain.errors ?? []), at);
}
