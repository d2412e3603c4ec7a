// `tessera serve`: its flags, then the server: listen first (probes answer while the store
// opens), open the store (one, namespaced tenants, or a cluster member), and shut both down
// cleanly on SIGTERM or SIGINT.
import { mkdirSync } from 'node:fs';
import { Namespaces, OneStore, apiRoutes, storeErrorStatus } from '../api';
import { authenticate, refuseWrites, shed } from '../http/hooks';
import { LOG_LEVELS, type LogLevel, accessLog, createLogger } from '../http/log';
import { createRegistry, httpMetrics } from '../http/metrics';
import { HttpServer } from '../http/server';
import { malformedJson } from '../json_syntax';
import { StoreError } from '../store/errors';
import { Store } from '../store/store';
import { TenantStores } from '../store/tenants';
import { DEFAULT_GC_GRACE_MS } from '../features/cluster/garbage';
import { ClusterNode } from '../features/cluster/node';
import { awsEnvironment, ObjectStore } from '../features/cluster/object_store';
import { ClusterSlot, cacheMetrics, durableRoutes, leaseMetrics, objectStoreFailures, sweepMetrics } from '../features/cluster/serve';
import type { Distance, IndexSettingInfo, OpenOptions } from '../types';
import { anyText, crash, DISTANCES, duration, durationOrZero, exit, flagHelp, type FlagSpec, integer, oneOf, readFlags, size, UsageError } from './flags';

/** How long in-flight requests may run on after SIGTERM/SIGINT before they are cancelled. */
const SHUTDOWN_GRACE_MS = 10_000;

interface ServeConfig {
  data: string;
  inMemory: boolean;
  namespaced: boolean;
  warmBytes: number;
  /** Cluster mode: `s3://bucket/prefix`. */
  cluster?: string;
  clusterEndpoint?: string;
  leaseTtlMs: number;
  gcGraceMs: number;
  standby: boolean;
  clusterReader: boolean;
  cacheBytes?: number;
  host: string;
  port: number;
  dimension?: number;
  distance?: Distance;
  token?: string;
  readOnly: boolean;
  consoleWithoutToken: boolean;
  maxBodyBytes: number;
  maxVectorBytes?: number;
  maxConcurrentRequests: number;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  queryThreads?: number;
  maxStalenessMs?: number;
  historyVersions?: number;
  atVersion?: number;
  mmap: boolean;
  /** ANN and quantization flags by open option (`efSearch`), as typed: the core alone judges them. */
  index: Record<string, string>;
  embedProvider?: string;
  summarizeProvider?: string;
  rerankProvider?: string;
  logLevel: LogLevel;
}

interface Flag extends FlagSpec {
  /** Config key it sets. */
  key: keyof ServeConfig;
  /** For an index flag: the open option its text goes to. */
  option?: string;
}

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
    return {
      name: settingFlag(s.name),
      key: 'index',
      option: s.option,
      parse: anyText,
      arg: s.choices ?? 'N',
      help: `${INDEX_HELP[s.name] ?? s.name} (${needs}${range}default ${s.default}, or what the store recorded)`,
    };
  });
}

const FLAGS: Flag[] = [
  { name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory, created on first open (default ./data)' },
  { name: '--in-memory', key: 'inMemory', value: true, help: 'no files at all; role InMemory (default off)' },
  {
    name: '--namespaced',
    key: 'namespaced',
    value: true,
    help: 'serve many tenant stores under --data, one per /ns/{namespace} path prefix, each opened on first use (default off)',
  },
  {
    name: '--cluster',
    key: 'cluster',
    parse: anyText,
    arg: 's3://BUCKET/PREFIX',
    help: 'cluster mode: the store lives in this object-store bucket and prefix, --data is its local copy; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN, AWS_REGION) (default off)',
  },
  {
    name: '--cluster-endpoint',
    key: 'clusterEndpoint',
    parse: anyText,
    arg: 'URL',
    help: 'with --cluster: the S3-compatible endpoint, path-style, e.g. http://127.0.0.1:7480 (default: none; --cluster needs it)',
  },
  {
    name: '--lease-ttl',
    key: 'leaseTtlMs',
    parse: duration,
    arg: 'DUR',
    help: "with --cluster: the writer lease's time to live; renewed every third of it (default 10s)",
  },
  {
    name: '--gc-grace',
    key: 'gcGraceMs',
    parse: durationOrZero,
    arg: 'DUR',
    help: 'with --cluster: a writer deletes an object no published state names only once it has been unnamed for DUR, so a reader loading an older state finds its objects (default 5m)',
  },
  {
    name: '--standby',
    key: 'standby',
    value: true,
    help: 'with --cluster: wait for the writer lease instead of refusing to start while another holds it (default off)',
  },
  {
    name: '--cluster-reader',
    key: 'clusterReader',
    value: true,
    help: 'with --cluster: serve the published state read-only; POST /refresh pulls newer (default off)',
  },
  {
    name: '--cache-bytes',
    key: 'cacheBytes',
    parse: size,
    arg: 'SIZE',
    help: "with --cluster: keep at most SIZE of segment files in --data, fetching a collection's files on the first call that needs them and removing the collections used longest ago past SIZE (default: no bound, the whole store restored at start)",
  },
  {
    name: '--warm-bytes',
    key: 'warmBytes',
    parse: size,
    arg: 'SIZE',
    help: 'with --namespaced: open tenant stores whose files add up past SIZE are closed, least recently used first, and reopened on their next request (default 1GiB)',
  },
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
  { name: '--mmap', key: 'mmap', value: true, help: 'map sealed segment files (default on)' },
  { name: '--no-mmap', key: 'mmap', value: false, help: 'read sealed segment files into memory instead' },
  ...indexFlags(Store.indexSettings()),
  {
    name: '--embed-provider',
    key: 'embedProvider',
    parse: anyText,
    arg: 'SPEC',
    help: 'embedder of remember/recall: hash:DIM (offline, lexical), openai:MODEL@URL, ollama:MODEL@URL, tei@URL (README "Providers"; default none)',
  },
  {
    name: '--rerank-provider',
    key: 'rerankProvider',
    parse: anyText,
    arg: 'SPEC',
    help: 'cross-encoder of rerank: cohere:MODEL@URL, jina:MODEL@URL, tei@URL (default none)',
  },
  {
    name: '--summarize-provider',
    key: 'summarizeProvider',
    parse: anyText,
    arg: 'SPEC',
    help: "summarizer of remember's summarize mode: extractive[:N] (offline), openai:MODEL@URL, ollama:MODEL@URL (default none)",
  },
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
    namespaced: false,
    warmBytes: 1024 ** 3,
    leaseTtlMs: 10_000,
    gcGraceMs: DEFAULT_GC_GRACE_MS,
    standby: false,
    clusterReader: false,
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
    logLevel: 'info',
  };
  const given = new Set<string>();
  readFlags(args, FLAGS, 'serve', (flag, value, raw) => {
    given.add(flag.name);
    if (flag.option) config.index[flag.option] = raw as string;
    else Object.assign(config, { [flag.key]: value });
  });
  if (config.inMemory && given.has('--data')) throw new UsageError('--in-memory and --data exclude each other');
  if (given.has('--at-version') && given.has('--max-staleness'))
    throw new UsageError('--max-staleness bounds how far a reader falls behind; an --at-version instance never refreshes, so drop one of them');
  if (config.namespaced) {
    for (const flag of ['--in-memory', '--at-version']) if (given.has(flag)) throw new UsageError(`--namespaced and ${flag} exclude each other`);
  } else if (given.has('--warm-bytes')) {
    throw new UsageError('--warm-bytes bounds the tenant stores of --namespaced; add --namespaced or drop it');
  }
  const clusterFlags = ['--cluster-endpoint', '--lease-ttl', '--gc-grace', '--standby', '--cluster-reader', '--cache-bytes'];
  if (config.cluster === undefined) {
    const stray = clusterFlags.find((flag) => given.has(flag));
    if (stray) throw new UsageError(`${stray} needs --cluster s3://BUCKET/PREFIX`);
  } else {
    for (const flag of ['--in-memory', '--namespaced', '--at-version', '--read-only'])
      if (given.has(flag))
        throw new UsageError(`--cluster and ${flag} exclude each other${flag === '--read-only' ? ' (a read-only cluster member is --cluster-reader)' : ''}`);
    if (config.standby && config.clusterReader) throw new UsageError('--standby waits for the writer lease; a --cluster-reader never takes it');
    if (given.has('--cache-bytes') && !config.clusterReader && given.has('--history-versions'))
      throw new UsageError("--cache-bytes bounds a writer that keeps no history; --history-versions needs every collection's files");
    if (!config.clusterEndpoint) throw new UsageError('--cluster needs --cluster-endpoint URL, e.g. http://127.0.0.1:7480');
    clusterLocation(config.cluster);
  }
  return config;
}

/** `s3://bucket/prefix` -> its parts; a bad location is a UsageError naming the form. */
function clusterLocation(location: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/([^\s]*[^\s/])$/.exec(location);
  if (!m) throw new UsageError(`--cluster must be s3://BUCKET/PREFIX (a bucket name, then a non-empty key prefix), got "${location}"`);
  return { bucket: m[1], prefix: m[2] };
}

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

export async function serve(config: ServeConfig): Promise<void> {
  const logger = createLogger(config.logLevel);
  const registry = createRegistry();
  const options: OpenOptions = {
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
    embedProvider: config.embedProvider,
    summarizeProvider: config.summarizeProvider,
    rerankProvider: config.rerankProvider,
    ...config.index,
  };
  const { path: _root, ...tenantOptions } = options;
  // Whatever the store would refuse is refused before listening (exit 2, like a bad flag), so a
  // supervisor never sees a start that was bound to fail; the check creates nothing. A namespaced
  // root is no store itself, and a cluster member's directory takes the published store's header:
  // their settings are checked as a new store's would be.
  const settingsOnly = config.namespaced || config.cluster !== undefined;
  await Store.check(settingsOnly ? { ...tenantOptions, inMemory: true, dimension: config.dimension ?? 0 } : options).catch((err: Error) =>
    refused(config, err, 2),
  );

  const tenants = config.namespaced ? tenantStores(config, tenantOptions, logger) : null;
  const node = config.cluster ? clusterNode(config, tenantOptions) : null;
  const slot = tenants ? new Namespaces(tenants) : node ? new ClusterSlot(node) : new OneStore();
  const slowQuery = Number(process.env.SVC_SLOW_QUERY_MS);
  let routes = apiRoutes(slot, {
    registry,
    slowQueryMs: slowQuery > 0 ? slowQuery : null,
    testFaults: process.env.TESSERA_TEST_FAULTS === '1',
    readOnly: config.readOnly,
    consoleWithoutToken: config.consoleWithoutToken,
  });
  if (node && !config.clusterReader) routes = durableRoutes(routes, node);
  if (node) routes = objectStoreFailures(routes);
  leaseMetrics(registry, () => node?.lease ?? null);
  sweepMetrics(registry, () => node?.garbage ?? null);
  cacheMetrics(registry, () => node?.cache ?? null);
  const server = new HttpServer(routes, {
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    readTimeoutMs: config.readTimeoutMs,
    writeTimeoutMs: config.writeTimeoutMs,
    hooks: [
      ...(config.token ? [authenticate(config.token)] : []),
      ...(config.readOnly ? [refuseWrites] : []),
      shed(config.maxConcurrentRequests),
      httpMetrics(registry),
      accessLog(logger),
      ...(slot instanceof Namespaces ? [slot] : []),
    ],
    logger,
    errorStatus: storeErrorStatus,
    describeMalformed: malformedJson,
  });

  // Listen first: /health answers and /ready says 503 while a large store is still opening.
  const port = await server.listen().catch((err: Error) => exit(err.message, 2));
  process.stdout.write(`listening on http://${urlHost(config.host)}:${port}\n`);

  // A shutdown ends a standby's wait: a process that is exiting never takes the writer lease.
  const shutdown = new AbortController();
  const opening = tenants ? null : node ? node.start(shutdown.signal) : Store.open(options);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown.abort(new Error(`shutting down (${signal})`));
    await server.close(SHUTDOWN_GRACE_MS);
    let code = 0;
    const store = await opening?.catch(() => null);
    const closing = tenants ? tenants.closeAll() : node ? node.close() : (store?.shutdown() ?? Promise.resolve());
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
  const store = await opening.catch((err: Error) => (stopping ? null : refused(config, err, err instanceof StoreError && err.status === 400 ? 2 : 1)));
  if (store === null) return;
  if (slot instanceof OneStore) slot.open(store);
  logger.info({ role: store.role, dimension: store.dimension, distance: store.distance, ann: store.ann, quantization: store.quantization }, 'store open');
}

/** --cluster: the node (it joins once the server listens); missing credentials exit 2 now. */
function clusterNode(config: ServeConfig, open: Omit<OpenOptions, 'path'>): ClusterNode {
  const { bucket, prefix } = clusterLocation(config.cluster as string);
  let aws: ReturnType<typeof awsEnvironment>;
  try {
    aws = awsEnvironment();
  } catch (err) {
    exit(`--cluster: ${(err as Error).message}`, 2);
  }
  const objects = new ObjectStore({ endpoint: config.clusterEndpoint as string, bucket, ...aws });
  return new ClusterNode({
    objects,
    prefix,
    location: config.cluster as string,
    dir: config.data,
    reader: config.clusterReader,
    standby: config.standby,
    leaseTtlMs: config.leaseTtlMs,
    gcGraceMs: config.gcGraceMs,
    ...(config.cacheBytes !== undefined && { cacheBytes: config.cacheBytes }),
    open,
  });
}

/** --namespaced: the root directory is made (or refused, exit 2) before anything listens. */
function tenantStores(config: ServeConfig, open: Omit<OpenOptions, 'path'>, logger: ReturnType<typeof createLogger>): TenantStores {
  try {
    mkdirSync(config.data, { recursive: true });
  } catch (err) {
    exit(`cannot use ${config.data} as the root of --namespaced stores: ${(err as Error).message}`, 2);
  }
  return new TenantStores({
    root: config.data,
    open,
    warmBytes: config.warmBytes,
    onCloseError: (namespace, err) => logger.error({ err, namespace }, 'closing an evicted namespace failed'),
  });
}

/**
 * The store refused to open: before listening always exit 2, like a bad flag. Once listening, only
 * the slow part of opening is left (the log, the segments): refusing our settings there (another
 * process recorded another dimension in between) is still 2, a fault 1. A refused index setting is
 * named by its flag.
 */
function refused(config: ServeConfig, err: Error, code: number): never {
  if (err instanceof StoreError && err.setting) exit(`${settingFlag(err.setting.setting)} ${err.setting.problem}`, code);
  const where = config.cluster ? `join the cluster store at ${config.cluster}` : `open the store ${config.inMemory ? 'in memory' : `at ${config.data}`}`;
  exit(`cannot ${where}: ${err.message}`, code);
}
