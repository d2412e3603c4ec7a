// `tessera serve`: its flags, then the server: listen first (probes answer while the store
// opens), open the store (one, namespaced tenants, or a cluster member), and shut both down
// cleanly on SIGTERM or SIGINT.
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { OneStore, type StoreSlot, apiRoutes, storeErrorStatus } from '../api';
import { FAMILIES } from '../features';
import type { Feature, FeatureFlag, Serving, Settings, ThreadLink } from '../features/feature';
import { authenticate, awakeWhenBusy, refuseWrites, shed } from '../http/hooks';
import { LOG_LEVELS, type LogLevel, accessLog, createLogger } from '../http/log';
import { createRegistry, httpMetrics, mergedMetrics } from '../http/metrics';
import { HttpServer } from '../http/server';
import { Relay } from '../http/relay';
import { Answers, HttpThreads, portMesh, sharedCounters } from '../http/threads';
import type { MessagePort } from 'node:worker_threads';
import { malformedJson } from '../json_syntax';
import { StoreError } from '../store/errors';
import { Store } from '../store/store';
import { keepAwake } from '../store/core_wait';
import type { Route } from '../http/route';
import type { Distance, IndexSettingInfo, OpenOptions } from '../types';
import { anyText, DISTANCES, duration, flagHelp, type FlagSpec, integer, oneOf, readFlags, size, sizeFrom, UsageError } from '../flags';
import { crash, exit } from './flags';

/** How long in-flight requests may run on after SIGTERM/SIGINT before they are cancelled. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * --http-threads' default: one per CPU, at most 16 (each thread holds a V8 heap of its own, about 20
 * MB when idle; past that the core's query threads, not the front, are what a read waits on).
 */
const DEFAULT_HTTP_THREADS = Math.min(availableParallelism(), 16);

export interface ServeConfig {
  data: string;
  inMemory: boolean;
  host: string;
  port: number;
  dimension?: number;
  distance?: Distance;
  token?: string;
  readOnly: boolean;
  consoleWithoutToken: boolean;
  maxBodyBytes: number;
  maxVectorBytes?: number;
  mappedVectorBytes?: number;
  maxConcurrentRequests: number;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  queryThreads?: number;
  /** Given by the flag; else one thread per CPU (DEFAULT_HTTP_THREADS), or one for a way of serving that keeps its state on one thread (cluster). */
  httpThreads?: number;
  maxStalenessMs?: number;
  historyVersions?: number;
  atVersion?: number;
  mmap: boolean;
  /** ANN and quantization flags by open option (`efSearch`), as typed: the core alone judges them. */
  index: Record<string, string>;
  /** The families' open options (a provider spec), by option. */
  featureOptions: Partial<OpenOptions>;
  /** Each family's settings from its flags, by family name. */
  settings: Record<string, Settings>;
  logLevel: LogLevel;
}

interface Flag extends FlagSpec {
  /** Config key it sets. */
  key: keyof ServeConfig;
  /** For an index flag: the open option its text goes to. */
  option?: string;
}

/** A family's flag, with the family it belongs to. */
interface FamilyFlag extends FeatureFlag {
  family: string;
}

const FAMILY_FLAGS: FamilyFlag[] = FAMILIES.flatMap((f) => (f.flags ?? []).map((flag) => ({ ...flag, family: f.name })));
const isFamilyFlag = (flag: Flag | FamilyFlag): flag is FamilyFlag => 'family' in flag;

/** What each index setting does; its range, kind and default come from the core's table. */
const INDEX_HELP: Record<string, string> = {
  ann: 'approximate index built per sealed segment',
  m: 'links per graph node',
  ef_construction: 'candidates kept while linking; at least --m',
  ef_search: 'candidates kept while searching',
  n_lists: 'inverted lists; 0 = chosen from the rows',
  n_probe: 'lists probed per query',
  overscan: 'the walk keeps overscan x (offset + top_k) candidates',
  seed: "seed of the index builder's randomness",
  quantization: 'quantized first pass (binary: Cosine only)',
  rescore: 'the quantized pass keeps rescore x (offset + top_k) candidates for exact rescoring',
};

/** `ef_search` -> `--ef-search`. */
const settingFlag = (setting: string) => `--${setting.replace(/_/g, '-')}`;

/**
 * The --ann ... --rescore flags, one per setting of the core's table. They pass their text through
 * untouched: the core parses and range-checks it (Store.check, before listening), so no range is
 * written twice.
 */
function indexFlags(settings: IndexSettingInfo[]): Flag[] {
  return settings.map((s) => {
    const range = s.choices ? '' : `${s.min} to ${s.max}; `;
    const needs = s.needs ? `with --${s.needs}; ` : '';
    // The kinds' defaults are a new store's on disk: in memory nothing is ever indexed.
    const where = s.choices ? ' for a new store on disk, none in memory' : '';
    return {
      name: settingFlag(s.name),
      key: 'index',
      option: s.option,
      parse: anyText,
      arg: s.choices ?? 'N',
      help: `${INDEX_HELP[s.name] ?? s.name} (${needs}${range}default ${s.default}${where}, or what the store recorded)`,
    };
  });
}

const FLAGS: Flag[] = [
  { name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory, created on first open (default ./data)' },
  { name: '--in-memory', key: 'inMemory', value: true, help: 'no files at all; role InMemory (default off)' },
  { name: '--host', key: 'host', parse: anyText, arg: 'ADDR', help: 'address to listen on (default 127.0.0.1)' },
  { name: '--port', key: 'port', parse: integer(0, 65535), arg: 'N', help: 'port to listen on; 0 picks a free one (default 8080)' },
  {
    name: '--dimension',
    key: 'dimension',
    parse: integer(0, 65536),
    arg: 'N',
    help: "dimension of a new store, 0 = keyword-only; an existing store's must match (default: none, so creating a store needs it)",
  },
  { name: '--distance', key: 'distance', parse: oneOf(DISTANCES), arg: 'M', help: 'Cosine | Euclidean | DotProduct, pinned like dimension (default Cosine)' },
  {
    name: '--token',
    key: 'token',
    parse: anyText,
    arg: 'T',
    help: 'bearer token required on all but /health, /ready, /metrics; also env TESSERA_TOKEN (default: no auth)',
  },
  { name: '--read-only', key: 'readOnly', value: true, help: 'refuse every write with 403; never takes the writer lock (default off)' },
  {
    name: '--console-without-token',
    key: 'consoleWithoutToken',
    value: true,
    help: "serve the web console's page and files (/console) without --token, like /health; the API it calls still needs it (default off: 401 without the token)",
  },
  {
    name: '--max-body-bytes',
    key: 'maxBodyBytes',
    parse: size,
    arg: 'SIZE',
    help: 'larger request bodies answer 413; SIZE like 1048576, 512KiB, 64MiB (default 64MiB)',
  },
  {
    name: '--max-vector-bytes',
    key: 'maxVectorBytes',
    parse: size,
    arg: 'SIZE',
    help: "upserts that would take the store's vector bytes (footprint.vector_bytes + named vectors) past it answer 507 and write nothing (default: no limit; sealed vectors are mmap'd files, so bound it when memory must be)",
  },
  {
    name: '--mapped-vector-bytes',
    key: 'mappedVectorBytes',
    parse: sizeFrom(0),
    arg: 'SIZE',
    help: 'with quantization and --mmap, sealed f32 rows past SIZE in all are read from their files to rescore instead of mapped: out of the resident set, ~1 us a row (default 256MiB)',
  },
  {
    name: '--max-concurrent-requests',
    key: 'maxConcurrentRequests',
    parse: integer(1),
    arg: 'N',
    help: 'beyond it requests are shed with 503 + Retry-After: 1; probes are never shed (default 256)',
  },
  {
    name: '--read-timeout',
    key: 'readTimeoutMs',
    parse: duration,
    arg: 'DUR',
    help: 'reads running longer answer 504 and are cancelled; DUR like 250ms, 5s, 2m (default 30s)',
  },
  {
    name: '--write-timeout',
    key: 'writeTimeoutMs',
    parse: duration,
    arg: 'DUR',
    help: 'writes running longer answer 504 and are cancelled, unless they had already committed (default 2m)',
  },
  {
    name: '--history-versions',
    key: 'historyVersions',
    parse: integer(0),
    arg: 'N',
    help: 'keep the last N commit versions readable for --at-version (default 0 = off)',
  },
  {
    name: '--at-version',
    key: 'atVersion',
    parse: integer(0),
    arg: 'V',
    help: 'serve that past commit version read-only, beside the writer (default: the latest)',
  },
  {
    name: '--max-staleness',
    key: 'maxStalenessMs',
    parse: duration,
    arg: 'DUR',
    help: 'a reader not refreshed (POST /refresh) within DUR is stale: /ready answers 503 (default: no bound)',
  },
  { name: '--query-threads', key: 'queryThreads', parse: integer(1, 1024), arg: 'N', help: 'core thread pool size (default: number of CPUs)' },
  {
    name: '--http-threads',
    key: 'httpThreads',
    parse: integer(1, 256),
    arg: 'N',
    help: `threads serving HTTP over the one store, each accepting on the port (default: number of CPUs up to 16, here ${DEFAULT_HTTP_THREADS}; 1 with --cluster)`,
  },
  { name: '--mmap', key: 'mmap', value: true, help: 'map sealed segment files (default on)' },
  { name: '--no-mmap', key: 'mmap', value: false, help: 'read sealed segment files into memory instead' },
  ...indexFlags(Store.indexSettings()),
  {
    name: '--log-level',
    key: 'logLevel',
    parse: oneOf(LOG_LEVELS),
    arg: 'LEVEL',
    help: `${LOG_LEVELS.join(' | ')}; logs are JSON lines on stderr (default info)`,
  },
];

/** `tessera serve --help`, ending with the other commands' lines. */
export const serveUsage = (otherCommands: string) => `usage: tessera serve [flags]

Serves a Tessera store over HTTP. Prints "listening on http://HOST:PORT" once accepting;
SIGTERM or SIGINT stops accepting, lets in-flight requests finish for up to ${SHUTDOWN_GRACE_MS / 1000}s
(then cancels them), flushes and closes the store, and exits 0. A bad flag, or a store or --data
it cannot serve (another dimension or distance, a corrupt header or manifest, a file, no
permission), exits 2 with one line on stderr before anything listens.

flags:
${flagHelp(FLAGS, 34)}
  ${'--help'.padEnd(34)} show this help

flags of the families (namespaced mode, cluster mode, providers):
${flagHelp(FAMILY_FLAGS, 34)}

environment:
  ${'TESSERA_TOKEN'.padEnd(34)} bearer token when --token is absent
  ${'SVC_SLOW_QUERY_MS'.padEnd(34)} log searches at least this slow, at warn (default off)
  ${'TESSERA_EMBED_API_KEY'.padEnd(34)} bearer key sent to the embed provider (TESSERA_SUMMARIZE_API_KEY,
  ${''.padEnd(34)} TESSERA_RERANK_API_KEY for the others)

other commands (each with --help):
${otherCommands}
`;

export function parseServe(args: string[], env: NodeJS.ProcessEnv): ServeConfig {
  const config: ServeConfig = {
    data: './data',
    inMemory: false,
    host: '127.0.0.1',
    port: 8080,
    token: env.TESSERA_TOKEN || undefined,
    readOnly: false,
    consoleWithoutToken: false,
    maxBodyBytes: 64 * 1024 * 1024,
    maxConcurrentRequests: 256,
    readTimeoutMs: 30_000,
    writeTimeoutMs: 120_000,
    mmap: true,
    index: {},
    featureOptions: {},
    settings: Object.fromEntries(FAMILIES.map((f) => [f.name, { ...f.defaults }])),
    logLevel: 'info',
  };
  const given = new Set<string>();
  readFlags<Flag | FamilyFlag>(args, [...FLAGS, ...FAMILY_FLAGS], 'serve', (flag, value, raw) => {
    given.add(flag.name);
    if (isFamilyFlag(flag)) {
      if (flag.option) Object.assign(config.featureOptions, { [flag.option]: value });
      else config.settings[flag.family][flag.key] = value;
    } else if (flag.option) config.index[flag.option] = raw as string;
    else Object.assign(config, { [flag.key]: value });
  });
  if (config.inMemory && given.has('--data')) throw new UsageError('--in-memory and --data exclude each other');
  if (given.has('--at-version') && given.has('--max-staleness'))
    throw new UsageError('--max-staleness bounds how far a reader falls behind; an --at-version instance never refreshes, so drop one of them');
  for (const family of FAMILIES) family.checkFlags?.(config.settings[family.name], given);
  return config;
}

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The store options of `tessera serve`'s flags. */
function openOptionsOf(config: ServeConfig): OpenOptions {
  return {
    ...(config.inMemory ? { inMemory: true } : { path: config.data }),
    dimension: config.dimension,
    distance: config.distance,
    queryThreads: config.queryThreads,
    mmap: config.mmap,
    readOnly: config.readOnly,
    maxStalenessMs: config.maxStalenessMs,
    historyVersions: config.historyVersions,
    atVersion: config.atVersion,
    maxVectorBytes: config.maxVectorBytes,
    mappedVectorBytes: config.mappedVectorBytes,
    ...config.featureOptions,
    ...config.index,
  };
}

/**
 * The way of serving a family's flags asked for (cluster mode, namespaced mode; they exclude each
 * other), with its family, or null for the one store. Its refusal (no credentials, a root it
 * cannot make) exits 2. `link` ties the way of serving on this HTTP thread to the others'.
 */
export function wayOfServing(config: ServeConfig, logger: Logger, link: ThreadLink): { family: Feature; serving: Serving } | null {
  const { path: _root, ...open } = openOptionsOf(config);
  for (const family of FAMILIES) {
    try {
      const serving = family.serve?.(config.settings[family.name], { open, data: config.data, logger, link }) ?? null;
      if (serving) return { family, serving };
    } catch (err) {
      if (err instanceof UsageError) exit(err.message, 2);
      throw err;
    }
  }
  return null;
}

export async function serve(config: ServeConfig): Promise<void> {
  const logger = createLogger(config.logLevel);
  const registry = createRegistry();
  const options = openOptionsOf(config);
  const { path: _root, ...open } = options;
  const answers = new Answers();
  const way = wayOfServing(config, logger, { role: 'leader', answers });
  const serving = way?.serving ?? null;
  // Whatever the store would refuse is refused before listening (exit 2, like a bad flag), so a
  // supervisor never sees a start that was bound to fail; the check creates nothing. A namespaced
  // root is no store itself, and a cluster member's directory takes the published store's header:
  // their settings are checked as a new store's would be.
  await Store.check(serving ? { ...open, inMemory: true, dimension: config.dimension ?? 0 } : options).catch((err: Error) => refused(config, serving, err, 2));

  const threads = config.httpThreads ?? (serving && !serving.threads ? 1 : DEFAULT_HTTP_THREADS);
  if (way && !way.serving.threads && threads > 1) exit(`--http-threads ${threads}: ${way.family.name} mode serves on one HTTP thread; drop --http-threads`, 2);

  const slot = serving?.slot ?? new OneStore();
  const active = sharedCounters();
  let others: HttpThreads | null = null;
  const scrape = async () => mergedMetrics(registry, others ? await others.gather() : []);
  answers.on('metrics', scrape);
  const mesh = threads > 1 ? portMesh(threads) : null;
  // With several HTTP threads each one's lines name it (thread 0 leads).
  const log = mesh ? logger.child({ thread: 0 }) : logger;
  const relay = mesh ? new Relay(0, mesh[0], log, storeErrorStatus) : undefined;
  const server = threadServer(config, slot, { threads, registry, logger: log, scrape, active, serving, relay });
  for (const family of FAMILIES) family.metrics?.(registry, family === way?.family ? serving : null);

  // Listen first: /health answers and /ready says 503 while a large store is still opening.
  const port = await server.listen(threads > 1 ? 'lead' : undefined).catch((err: Error) => exit(err.message, 2));
  process.stdout.write(`listening on http://${urlHost(config.host)}:${port}\n`);
  if (mesh) {
    const data = (index: number) => {
      const peers = mesh[index];
      return { data: { config: { ...config, port }, threads, active, index, peers } satisfies HttpThreadData, transfer: [...peers.values()] };
    };
    others = new HttpThreads(path.join(__dirname, 'http_thread.js'), threads - 1, data, logger, answers, () =>
      logger.info({ threads }, 'HTTP threads listening'),
    );
    // An error nothing caught on this thread ends the process as one on another does: logged,
    // every thread's connections closed, exit 1.
    const group = others;
    const died = (err: unknown) => void group.fatal(0, err instanceof Error ? err : new Error(String(err)));
    process.on('uncaughtException', died);
    process.on('unhandledRejection', died);
  }

  // A shutdown ends a standby's wait: a process that is exiting never takes the writer lease.
  const shutdown = new AbortController();
  const opening = serving ? serving.start(shutdown.signal) : Store.open(options);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown.abort(new Error(`shutting down (${signal})`));
    await Promise.all([server.close(SHUTDOWN_GRACE_MS), others?.close(SHUTDOWN_GRACE_MS)]);
    await relay?.drain(SHUTDOWN_GRACE_MS);
    let code = 0;
    const store = await opening?.catch(() => null);
    const closing = serving ? serving.close() : (store?.shutdown() ?? Promise.resolve());
    await closing.catch((err) => {
      logger.error({ err }, 'flush or close failed');
      code = 1;
    });
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM').catch(crash));
  process.on('SIGINT', () => void stop('SIGINT').catch(crash));

  if (!opening) return;
  // Opening cut short by a shutdown is stop()'s to end (exit 0), not a refusal.
  const store = await opening.catch((err: Error) => (stopping ? null : refused(config, serving, err, err instanceof StoreError && err.status === 400 ? 2 : 1)));
  if (store === null) return;
  if (slot instanceof OneStore) {
    slot.open(store);
    others?.serve(store.share());
  }
  logger.info({ role: store.role, dimension: store.dimension, distance: store.distance, ann: store.ann, quantization: store.quantization }, 'store open');
}

/** What the leading thread hands each other HTTP thread (http_thread.ts) as its workerData. */
export interface HttpThreadData {
  config: ServeConfig;
  /** How many HTTP threads the server has. */
  threads: number;
  /** The shed hook's count, shared by every thread. */
  active: Int32Array;
  /** This thread's number (the leader is 0) and its ports to the others, by number (Relay). */
  index: number;
  peers: Map<number, MessagePort>;
}

/** What one HTTP thread serves with, beside the config and the slot. */
interface ThreadParts {
  /** The server's HTTP threads: with several, each runs a bounded read where it arrives. */
  threads: number;
  registry: Registry;
  logger: Logger;
  /** /metrics' answer: the whole server's. */
  scrape: () => Promise<string>;
  active: Int32Array;
  /** The way of serving (namespaced, cluster) when one serves. */
  serving?: Serving | null;
  /** Whether this thread's registry has the store's gauges (the leading thread's). */
  storeMetrics?: boolean;
  /** Hands a request to the thread owning its state (several HTTP threads only). */
  relay?: Relay;
}

/** One HTTP thread's server: every route over `slot`, behind the hooks, as each thread of a server builds it. */
export function threadServer(
  config: ServeConfig,
  slot: StoreSlot,
  { threads, registry, logger, scrape, active, serving, storeMetrics, relay }: ThreadParts,
): HttpServer {
  if (threads > 1) Store.inlineReads('sync');
  const slowQuery = Number(process.env.SVC_SLOW_QUERY_MS);
  const routes = apiRoutes(slot, {
    registry,
    slowQueryMs: slowQuery > 0 ? slowQuery : null,
    testFaults: process.env.TESSERA_TEST_FAULTS === '1',
    readOnly: config.readOnly,
    consoleWithoutToken: config.consoleWithoutToken,
    scrape,
    storeMetrics,
    relay,
    ...(serving && { served: (r: Route[]) => serving.routes(r) }),
  });
  return new HttpServer(routes, {
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    readTimeoutMs: config.readTimeoutMs,
    writeTimeoutMs: config.writeTimeoutMs,
    hooks: [
      ...(config.token ? [authenticate(config.token)] : []),
      ...(config.readOnly ? [refuseWrites] : []),
      shed(config.maxConcurrentRequests, active),
      httpMetrics(registry),
      accessLog(logger),
      awakeWhenBusy(keepAwake),
      ...(serving?.hooks ?? []),
    ],
    logger,
    errorStatus: storeErrorStatus,
    describeMalformed: malformedJson,
  });
}

/**
 * The store refused to open: before listening always exit 2, like a bad flag. Once listening, only
 * the slow part of opening is left (the log, the segments): refusing our settings there (another
 * process recorded another dimension in between) is still 2, a fault 1. A refused index setting is
 * named by its flag.
 */
function refused(config: ServeConfig, serving: Serving | null, err: Error, code: number): never {
  if (err instanceof StoreError && err.setting) exit(`${settingFlag(err.setting.setting)} ${err.setting.problem}`, code);
  const where = serving?.what ?? `open the store ${config.inMemory ? 'in memory' : `at ${config.data}`}`;
  exit(`cannot ${where}: ${err.message}`, code);
}
