// What a family is to the server: its name, whether this package has it, and what it adds, each
// optional: flags of `tessera serve`, routes, metrics, and a way of serving the store (cluster mode,
// namespaced mode). Its own module, so a family names the contract without importing the list of
// families. What a family adds to the library is its StoreExtension (lib/store/store.ts).
import type { Registry } from 'prom-client';
import type { FlagSpec } from '../flags';
import type { Hook } from '../http/hooks';
import type { Logger } from 'pino';
import type { Relay } from '../http/relay';
import type { Answers } from '../http/threads';
import type { Route } from '../http/route';
import type { QueryAccounting } from '../route_kit/query_accounting';
import type { StoreSlot } from '../route_kit/slot';
import type { Store } from '../store/store';
import type { OpenOptions } from '../types';

/** What the server tells the families about itself. */
export interface FeatureOptions {
  /** `--read-only`: a family answering writes outside the route table (MCP tools) refuses them. */
  readOnly: boolean;
  /** The query counter and slow-query log every route running a query shares. */
  queries: QueryAccounting;
  /** With several HTTP threads: hands a request to the thread that owns its state (an MCP session lives on the thread that opened it). */
  relay?: Relay;
}

/** A flag of `tessera serve` a family adds: it sets `settings[key]`, or with `option` that open option of the store. */
export interface FeatureFlag extends FlagSpec {
  key: string;
  option?: keyof OpenOptions;
}

/** A family's settings from its flags, by key (its `defaults` where a flag was not given). */
export type Settings = Record<string, unknown>;

/**
 * How a way of serving on one HTTP thread reaches the others: the leading thread (the one that
 * started) registers what it answers; every other thread asks it. A way of serving that keeps its
 * state with the leader this way serves on several threads (Serving.threads).
 */
export type ThreadLink = { role: 'leader'; answers: Answers } | { role: 'worker'; ask(kind: string, payload?: unknown): Promise<unknown> };

/** What a way of serving is given: the options every store opens with (but its path), the --data directory, the logger, the other HTTP threads. */
export interface ServeContext {
  open: Omit<OpenOptions, 'path'>;
  data: string;
  logger: Logger;
  link: ThreadLink;
}

/** A way of serving the store, set up for one server when its flags ask for it. */
export interface Serving {
  /** How a refusal to open names what it tried: `join the cluster store at s3://b/p`. */
  what: string;
  /** Where the routes find the store. */
  slot: StoreSlot;
  /** The routes as served: the tenant prefix, writes answered once durable. */
  routes(routes: Route[]): Route[];
  hooks: readonly Hook[];
  /** Starts once the server listens: the store to serve, or null when stores open per request. */
  start(signal: AbortSignal): Promise<Store> | null;
  /** Flushes and closes whatever it opened. */
  close(): Promise<void>;
  /** Whether it serves on several HTTP threads (its state kept once, through ServeContext.link); else the server has one. */
  threads?: boolean;
}

/** One family. Methods, so that a family's own Serving type stands in for Serving. */
export interface Feature<S extends Serving = Serving> {
  name: string;
  /** Whether this package has it (its build feature); a family not built mounts nothing. */
  enabled: boolean;
  flags?: readonly FeatureFlag[];
  defaults?: Settings;
  /** Refuses its flags where they cannot go together with the others given (a UsageError naming both). */
  checkFlags?(settings: Settings, given: ReadonlySet<string>): void;
  routes?(slot: StoreSlot, options: FeatureOptions): Route[];
  /** Registers its metrics; `serving` is its own when it serves this server, else null. */
  metrics?(registry: Registry, serving: S | null): void;
  /** The way of serving its settings ask for, or null. */
  serve?(settings: Settings, context: ServeContext): S | null;
}
