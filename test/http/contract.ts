// The contract test: every answer an HTTP test receives through `call` (./helpers.ts) must be one
// the API description (GET /openapi.json) describes for its route and status, and every request
// body the server accepted must be one it describes. The description is built here exactly as the
// server builds it, from the route table (with the test-only fault routes mounted).
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Registry } from 'prom-client';
import { apiRoutes, describeApi, OneStore } from '../../lib/api';
import type { JsonSchema } from '../../lib/http/schema';

interface Operation {
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: JsonSchema }> }>;
}

const ID = 'openapi.json';

/** An ajv holding the description, so that validators can point into it. */
function ajvOver(document: JsonSchema, allErrors: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors });
  addFormats(ajv);
  // The document's own members are not JSON Schema keywords: known, and never validated with.
  ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'security', 'paths', 'components']);
  ajv.addSchema({ ...document, $id: ID });
  return ajv;
}

/**
 * The description, and two ajvs over it: one that stops at the first error, to check with (with
 * every error collected, an anyOf over a 10,000-hit answer took 30 s), and one that collects every
 * error, to say what is wrong once a check fails.
 */
function load() {
  const document = describeApi(
    apiRoutes(new OneStore(), { registry: new Registry(), slowQueryMs: null, testFaults: true, readOnly: false, consoleWithoutToken: false }),
  );
  const ajv = { check: ajvOver(document, false), explain: ajvOver(document, true) };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  // Templates with fewer parameters first, so /search/similar is never read as a {name}.
  const templates = Object.keys(paths)
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`) }));
  return { document, ajv, paths, templates };
}

let loaded: ReturnType<typeof load> | null = null;
const validators = new Map<string, ValidateFunction>();

/** Why `value` breaks the schema at `path`, or null when it keeps to it. */
function violation(path: string, value: unknown): string | null {
  if (validator(path, 'check')(value)) return null;
  const explain = validator(path, 'explain');
  explain(value);
  return problems(explain);
}

/** A JSON pointer (without its leading slash) to these keys. */
export const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validator(path: string, use: 'check' | 'explain'): ValidateFunction {
  let v = validators.get(`${use} ${path}`);
  if (!v) {
    v = loaded!.ajv[use].compile({ $ref: `${ID}#/${path}` });
    validators.set(`${use} ${path}`, v);
  }
  return v;
}

/** The description, as the contract checks against it. */
export function apiDescription(): JsonSchema {
  loaded ??= load();
  return loaded.document;
}

/** The route template and operation of a request, or null for a path the description does not know (an unknown route). */
function operationOf(method: string, url: string): { template: string; op: Operation } | null {
  loaded ??= load();
  const path = url.split('?')[0].replace(/^\/ns\/[^/]+/, '');
  const match = loaded.templates.find((t) => t.pattern.test(path));
  const op = match && loaded.paths[match.template][method.toLowerCase()];
  return op ? { template: match.template, op } : null;
}

const MAX_CHECKED_REQUEST = 1 << 20;

const baseType = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

function problems(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

/** Why an exchange breaks the description, or null when it keeps to it. */
export function contractViolation(
  method: string,
  url: string,
  requestText: string | undefined,
  status: number,
  contentType: string,
  text: string,
): string | null {
  const found = operationOf(method, url);
  if (!found) return null;
  const { template, op } = found;
  const where = `${method} ${template} answered ${status}`;
  const key = pointer('paths', template, method.toLowerCase());
  let response = op.responses[status];
  let responseKey = `${key}/${pointer('responses', String(status))}`;
  if (!response) return `${where}, a status the description does not list for it (${Object.keys(op.responses).join(', ')}); body: ${text.slice(0, 500)}`;
  if (response.$ref) {
    responseKey = response.$ref.slice(2);
    response = (loaded!.document.components as { responses: Record<string, typeof response> }).responses[String(status)];
  }
  const content = response.content ?? {};
  if (Object.keys(content).length === 0)
    return text === '' ? null : `${where} with a body, but the description gives that answer none; body: ${text.slice(0, 500)}`;
  const type = Object.keys(content).find((t) => baseType(t) === baseType(contentType));
  if (!type) return `${where} as ${contentType}, not one of ${Object.keys(content).join(', ')}; body: ${text.slice(0, 500)}`;
  let body: unknown = text;
  if (baseType(type) === 'application/json') {
    try {
      body = JSON.parse(text);
    } catch {
      return `${where} with a body that is not JSON: ${text.slice(0, 500)}`;
    }
  }
  const wrong = violation(`${responseKey}/${pointer('content', type, 'schema')}`, body);
  if (wrong !== null) return `${where} with a body the description does not allow: ${wrong}; body: ${text.slice(0, 1000)}`;
  // A request the server accepted must be one the description allows (else the description is too
  // narrow). Bulk bodies are left to the smaller ones of their route: checking megabytes would hold
  // the test's event loop while it times other requests.
  if (status < 300 && requestText !== undefined && op.requestBody && requestText.length <= MAX_CHECKED_REQUEST && requestText.trim() !== '') {
    let request: unknown;
    try {
      request = JSON.parse(requestText);
    } catch {
      return `${where} to a request body that is not JSON: ${requestText.slice(0, 500)}`;
    }
    const wrongRequest = violation(`${key}/${pointer('requestBody', 'content', 'application/json', 'schema')}`, request);
    if (wrongRequest !== null)
      return `${method} ${template} accepted a request body the description does not allow: ${wrongRequest}; request: ${requestText.slice(0, 1000)}`;
  }
  return null;
}

/** fetch that checks each exchange like `call` does: for the typed client's tests. */
export const checkedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const body = init?.body;
  const requestText = body === undefined || body === null ? undefined : typeof body === 'string' ? body : Buffer.from(body as Uint8Array).toString('utf8');
  const violation = contractViolation(
    init?.method ?? 'GET',
    url.pathname,
    requestText,
    res.status,
    res.headers.get('content-type') ?? '',
    await res.clone().text(),
  );
  if (violation) throw new Error(`contract: ${violation}`);
  return res;
};
