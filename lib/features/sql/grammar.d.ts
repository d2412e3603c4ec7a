// Types of the parser peggy generates from grammar.peggy (`npm run compile`): the statement tree.
import type { RawJson } from '../../exact_json';

// Every node carries `at`, its offset in the parsed text (UTF-16 code units).

/** A predicate of the spec's filter language, as the typed routes take it. */
export type Predicate = Record<string, unknown>;

/** A WHERE condition: AND, OR and NOT over predicates. */
export type Condition =
  | { op: 'and' | 'or'; args: Condition[]; at: number }
  | { op: 'not'; arg: Condition; at: number }
  | { op: 'leaf'; pred: Predicate; at: number };

export interface KeyRef {
  name: string;
  at: number;
}

/** `name = value` in OPTIONS, `name => value` inside a function; the value is plain JSON (bigint past 2^53). */
export interface NamedValue {
  name: string;
  value: unknown;
  at: number;
}

export type SelectItem = { kind: 'count'; at: number } | { kind: 'sum'; key: KeyRef; at: number } | { kind: 'attr'; key: KeyRef; at: number };

export type Projection = { kind: 'all'; except: KeyRef[] | null; at: number } | { kind: 'items'; items: SelectItem[] };

export interface Bm25 {
  field: string;
  query: string;
  args: NamedValue[];
  at: number;
}

export interface NearestHead {
  kind: 'vector';
  /** As written when it was JSON already (it goes into the request as it is), else the numbers. */
  vector: RawJson | number[];
  args: NamedValue[];
  at: number;
}

export interface TextHead {
  kind: 'text';
  clauses: Bm25[];
  combine: 'Sum' | 'Max';
  at: number;
}

export type Direction = 'ASC' | 'DESC' | null;

export type OrderHead =
  | (NearestHead & { direction: Direction })
  | (TextHead & { direction: Direction })
  | { kind: 'hybrid'; vector: NearestHead; text: TextHead; args: NamedValue[]; direction: Direction; at: number }
  | { kind: 'count'; direction: Direction; at: number }
  | { kind: 'attribute'; key: KeyRef; direction: Direction; at: number };

export interface Count {
  value: number | bigint;
  at: number;
}

export interface Statement {
  at: number;
  select: Projection;
  from: KeyRef[] | null;
  where: Condition | null;
  groupBy: KeyRef | null;
  order: OrderHead | null;
  limit: Count | null;
  offset: Count | null;
  options: NamedValue[] | null;
}

export interface ParseOptions {
  /** Filled while parsing: section, offset, section, offset, ... (where each clause began). */
  marks: number[];
  /** The numeric arrays lifted out of the text; `\u0001N` in the text stands for vectors[N]. */
  vectors: (RawJson | number[])[];
}

/** A failure found by the grammar's own checks (an integer past Int64, a bad timestamp...). */
export interface GrammarError {
  sqlError: string;
  section: number;
  at: number;
}

/** What peggy throws where the text does not follow the grammar (exported as `SyntaxError`). */
declare class PeggySyntaxError extends Error {
  expected: unknown[] | null;
  found: string | null;
  location: { start: { offset: number } };
}
export { PeggySyntaxError as SyntaxError };

export function parse(input: string, options: ParseOptions): Statement[];
