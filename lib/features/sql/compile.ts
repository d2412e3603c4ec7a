// Compiling one parsed SELECT into the typed request a route runs (docs/sql.md): the ORDER BY
// head picks the kind, the clauses fill the route's fields, OPTIONS adds the ones SQL has no
// clause for. The route validates the values itself, so its own 400s come through unchanged.
import type { Bm25, Condition, NamedValue, Predicate, Statement, TextHead } from './grammar';
import { SqlError } from './parse';

/** The five typed routes a statement can compile to. */
export type Kind = 'search' | 'text-search' | 'hybrid-search' | 'list' | 'aggregate';

/** A compiled statement: the route it runs and the request body that route takes. */
export interface Compiled {
  kind: Kind;
  body: Record<string, unknown>;
}

/** Each kind's route fields that OPTIONS may set (the rest have a clause or a function argument). */
const OPTION_FIELDS: Record<Kind, readonly string[]> = {
  search: ['min_score', 'exact', 'rank_by', 'limit_per', 'diversity', 'expand', 'rerank', 'plan'],
  'text-search': ['min_score', 'rank_by', 'limit_per', 'diversity', 'expand', 'rerank', 'explain', 'highlight'],
  'hybrid-search': ['limit_per', 'diversity', 'expand', 'rerank', 'explain', 'highlight', 'plan'],
  list: [],
  aggregate: [],
};

/** Named arguments each ORDER BY function takes, and the body field each one sets. */
const NEAREST_ARGS = { names: 'names', name_weights: 'name_weights', pool: 'pool' };
const BM25_ARGS = { prefix: 'prefix' };
const RRF_ARGS = { k: 'rrf_k', rrf_k: 'rrf_k', candidates: 'candidates', vector_weight: 'vector_weight', text_weight: 'text_weight' };

/** Compiles one statement; `byte` maps its offsets to byte offsets in the script for errors. */
export function compileStatement(s: Statement, byte: (at: number) => number): Compiled {
  const fail = (at: number, problem: string, section: number): never => {
    throw new SqlError(byte(at), problem, section);
  };
  const aggregates = s.select.kind === 'items' && s.select.items.some((i) => i.kind !== 'attr');
  if (aggregates || s.groupBy !== null) return compileAggregate(s, fail);

  const body: Record<string, unknown> = {};
  const order = s.order;
  let kind: Kind;
  if (order === null || order.kind === 'attribute') {
    kind = 'list';
    if (order !== null) body.order_by = { field: order.key.name, descending: order.direction === 'DESC' };
  } else if (order.kind === 'count') {
    return fail(order.at, 'ORDER BY COUNT(*) needs an aggregate SELECT list, such as SELECT COUNT(*) ... GROUP BY key', 12);
  } else {
    if (order.direction === 'ASC') fail(order.at, 'ranked results come best first; leave out ASC (DESC is the only order)', 7);
    if (order.kind === 'vector') {
      kind = 'search';
      body.query = order.vector;
      namedArgs(order.args, NEAREST_ARGS, body, 'NEAREST', 8, fail);
    } else if (order.kind === 'text') {
      kind = 'text-search';
      textLeg(order, 'query', body, fail);
    } else {
      kind = 'hybrid-search';
      if (order.vector.args.length > 0)
        fail(order.vector.args[0].at, 'the vector leg of RRF searches the default vector only; NEAREST inside RRF takes no named arguments', 10);
      body.vector = order.vector.vector;
      textLeg(order.text, 'text', body, fail);
      namedArgs(order.args, RRF_ARGS, body, 'RRF', 10, fail);
    }
  }

  if (s.from !== null) body.scope = s.from.map((n) => n.name);
  if (s.where !== null) body.filter = filter(s.where, fail);
  if (s.select.kind === 'all') {
    if (s.select.except !== null) body.exclude_attributes = s.select.except.map((k) => k.name);
  } else {
    body.include_attributes = s.select.items.flatMap((i) => (i.kind === 'attr' ? [i.key.name] : []));
  }
  if (s.limit !== null) body[kind === 'list' ? 'limit' : 'top_k'] = s.limit.value;
  if (s.offset !== null) body.offset = s.offset.value;
  if (s.options !== null) {
    const allowed = OPTION_FIELDS[kind];
    const seen = new Set<string>();
    for (const o of s.options) {
      if (!allowed.includes(o.name))
        fail(
          o.at,
          allowed.length === 0
            ? `a ${kind} statement takes no OPTIONS; remove ${o.name}`
            : `OPTIONS ${o.name} does not apply to ${kind}; it takes ${allowed.join(', ')}`,
          14,
        );
      if (seen.has(o.name)) fail(o.at, `OPTIONS sets ${o.name} twice; set each of ${allowed.join(', ')} at most once`, 14);
      seen.add(o.name);
      body[o.name] = o.value;
    }
  }
  return { kind, body };
}

type Fail = (at: number, problem: string, section: number) => never;

function compileAggregate(s: Statement, fail: Fail): Compiled {
  const body: Record<string, unknown> = {};
  const sum: string[] = [];
  const group = s.groupBy?.name;
  if (s.select.kind === 'all') fail(s.select.at, 'an aggregate SELECT lists COUNT(*), SUM(attr) and the GROUP BY key, not *', 12);
  else {
    for (const item of s.select.items) {
      if (item.kind === 'sum') sum.push(item.key.name);
      else if (item.kind === 'attr' && item.key.name !== group)
        fail(
          item.at,
          group === undefined
            ? `${item.key.name} is neither aggregated nor grouped; add GROUP BY ${item.key.name} or select COUNT(*) and SUM(attr) only`
            : `${item.key.name} is neither aggregated nor the GROUP BY key (${group})`,
          12,
        );
    }
  }
  if (s.order !== null && !(s.order.kind === 'count' && s.order.direction !== 'ASC'))
    fail(s.order.at, 'aggregate groups come by count, largest first; the only ORDER BY is COUNT(*) DESC', 12);
  if (s.limit !== null) fail(s.limit.at, 'an aggregate answers every group (up to 10000); LIMIT does not apply', 12);
  if (s.offset !== null) fail(s.offset.at, 'an aggregate answers every group (up to 10000); OFFSET does not apply', 12);
  if (s.options !== null) fail(s.options[0].at, 'an aggregate takes no OPTIONS', 14);
  if (s.from !== null) body.scope = s.from.map((n) => n.name);
  if (s.where !== null) body.filter = filter(s.where, fail);
  if (sum.length > 0) body.sum = sum;
  if (group !== undefined) body.group_by = group;
  return { kind: 'aggregate', body };
}

/** The text leg: one BM25 is the single field + query spelling, several are clauses. */
function textLeg(head: TextHead, queryKey: 'query' | 'text', body: Record<string, unknown>, fail: Fail): void {
  const clauses = head.clauses.map((c) => bm25Clause(c, fail));
  if (clauses.length === 1) {
    body.field = clauses[0].field;
    body[queryKey] = clauses[0].query;
    if (clauses[0].prefix !== undefined) body.prefix = clauses[0].prefix;
  } else {
    body.clauses = clauses;
  }
  if (head.combine === 'Max') body.combine = 'Max';
}

function bm25Clause(c: Bm25, fail: Fail): { field: string; query: string; prefix?: unknown } {
  const clause: Record<string, unknown> = { field: c.field, query: c.query };
  namedArgs(c.args, BM25_ARGS, clause, 'BM25', 9, fail);
  return clause as { field: string; query: string; prefix?: unknown };
}

function namedArgs(args: NamedValue[], known: Record<string, string>, into: Record<string, unknown>, fn: string, section: number, fail: Fail): void {
  const seen = new Set<string>();
  for (const a of args) {
    const field = Object.hasOwn(known, a.name) ? known[a.name] : undefined;
    if (field === undefined) fail(a.at, `${fn} takes no argument ${a.name}; it takes ${Object.keys(known).join(', ')}`, section);
    else {
      if (seen.has(field)) fail(a.at, `${fn} sets ${a.name} twice`, section);
      seen.add(field);
      into[field] = a.value;
    }
  }
}

// Deeper conditions are refused here, before the recursion below could run out of stack; the
// filter language's own bound is lower, and the route names it for the depths in between.
const MAX_NESTING = 256;

/** A top-level AND is the filter array itself; below it AND, OR and NOT are All, Any and Not. */
function filter(where: Condition, fail: Fail): Predicate[] {
  const top: Condition[] = [];
  const pending: Condition[] = [where];
  while (pending.length > 0) {
    const c = pending.pop() as Condition;
    if (c.op === 'and') for (let i = c.args.length - 1; i >= 0; i--) pending.push(c.args[i]);
    else top.push(c);
  }
  for (const c of top) checkNesting(c, fail);
  return top.map(predicate);
}

function checkNesting(root: Condition, fail: Fail): void {
  const pending: [Condition, number][] = [[root, 0]];
  while (pending.length > 0) {
    const [c, depth] = pending.pop() as [Condition, number];
    if (c.op === 'leaf') continue;
    if (depth >= MAX_NESTING) fail(c.at, `conditions nest more than ${MAX_NESTING} levels deep; flatten them`, 6);
    for (const arg of c.op === 'not' ? [c.arg] : c.args) pending.push([arg, depth + 1]);
  }
}

function predicate(c: Condition): Predicate {
  switch (c.op) {
    case 'leaf':
      return c.pred;
    case 'not':
      return { Not: predicate(c.arg) };
    case 'and':
      return { All: c.args.map(predicate) };
    case 'or':
      return { Any: c.args.map(predicate) };
  }
}
