// Route: a route's method, path template, access class and body handling, and template helpers.
import type { Reply } from './reply';
import type { Request } from './request';
import type { JsonSchema, Schema } from './schema';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** How the cross-cutting rules treat a route. */
export type Access =
  /** No token, never shed, no deadline; must answer without waiting on the store. */
  | 'probe'
  /** Token, shedding, `--read-timeout`. */
  | 'read'
  /** Token, shedding, `--write-timeout`, refused with 403 by `--read-only`. */
  | 'write';

/** One answer of a route, for the API description. */
export interface Answer {
  description: string;
  /** The JSON Schema of a JSON (`application/json`) body. */
  schema?: JsonSchema;
  /** Bodies of other content types, by content type; a text body's schema is `{type: 'string'}`. */
  content?: Record<string, JsonSchema>;
}

/**
 * What the API description (GET /openapi.json) says of a route. A schema body describes itself;
 * the errors every route of an access class can answer are added to `responses` when the
 * description is built (lib/http/openapi.ts).
 */
export interface RouteDoc {
  /** The method name of the route in the library and the client (Store.search, TesseraClient.search). */
  operationId: string;
  summary: string;
  /** The body of a `raw` route, as the library or the core validates it. */
  request?: JsonSchema;
  /** The body may be left out (the route then reads it as `{}`). */
  requestOptional?: boolean;
  /** The route's own answers by status; an entry here replaces the access class's answer for that status. */
  responses: Record<number, Answer>;
  /** Error statuses it answers beyond its access class's (502: a provider it calls failed). */
  errors?: readonly number[];
}

/** A route without its handler: what the cross-cutting rules and the API description need to know. */
export interface RouteHead<B = unknown> {
  method: Method;
  /** Template such as `/collections/{name}/meta`; also the metrics `route` label. */
  path: string;
  access: Access;
  /**
   * Absent: any body is ignored. `raw`: the bytes go to the handler untouched (the core parses them).
   * A schema: the body is parsed as JSON and checked before the handler runs.
   */
  body?: 'raw' | Schema<B>;
  /**
   * A `read` route whose body can make it a write (a reinforced recall): once the body is read,
   * true makes the request a write, refused by `--read-only` and judged on `--write-timeout`.
   */
  writeWhen?(req: Request<B>): boolean;
  /**
   * A `read` route whose body can carry a write it refuses itself on `--read-only` (an MCP tool
   * call answers the refusal as a tool error): true only judges the request on `--write-timeout`.
   */
  writeTimeoutWhen?(req: Request<B>): boolean;
  /**
   * Request headers the handler reads beyond the ones every route gets (lowercase names). uWS
   * frees its request object once dispatch returns, so they are copied up front, and only for the
   * routes that ask.
   */
  headers?: readonly string[];
  /** Answers for the whole process, not one store: a --namespaced server serves it without the /ns/{namespace} prefix. */
  global?: true;
  doc: RouteDoc;
}

export interface Route<B = unknown> extends RouteHead<B> {
  handle(req: Request<B>): Promise<Reply> | Reply;
  /** Runs once when the server stops accepting: a route holding long-lived streams ends them here, so they finish cleanly. */
  close?(): void;
}

/** Lets TypeScript infer the body type from the schema while typing the handler. */
export const route = <B = undefined>(r: Route<B>): Route => r as Route;

/** Names of the `{param}` segments of a template, in order. */
export const paramNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/**
 * The methods each path answers, for a request no route matched: a path some route serves by
 * another method answers 405 with them in `Allow`, an unknown one 404. Templates match as the
 * router matches them, a `{param}` standing for one non-empty segment.
 */
export function allowedMethods(routes: readonly RouteHead[]): (path: string) => Method[] {
  const byTemplate = new Map<string, { pattern: RegExp; methods: Method[] }>();
  for (const { path, method } of routes) {
    const entry = byTemplate.get(path) ?? { pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`), methods: [] };
    entry.methods.push(method);
    byTemplate.set(path, entry);
  }
  const templates = [...byTemplate.values()];
  return (path) => [...new Set(templates.flatMap((t) => (t.pattern.test(path) ? t.methods : [])))].sort();
}

/** The uWebSockets.js spelling of a template: `{name}` becomes `:name`. */
export const uwsPattern = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');
