// Cluster mode as a family: the --cluster flags, the node that joins the object store once the
// server listens, the routes as a member serves them (a writer's writes answered once durable, an
// object-store failure a retry cures answered 503), and the lease, sweep and cache counters (0 on
// any other server).
import type { Registry } from 'prom-client';
import { anyText, duration, durationOrZero, size, UsageError } from '../../flags';
import type { Feature, Serving } from '../feature';
import { DEFAULT_GC_GRACE_MS } from './garbage';
import { ClusterNode } from './node';
import { awsEnvironment, ObjectStore } from './object_store';
import { ClusterSlot, cacheMetrics, durableRoutes, leaseMetrics, objectStoreFailures, sweepMetrics } from './serve';

interface ClusterServing extends Serving {
  node: ClusterNode;
}

/** `s3://bucket/prefix` -> its parts; a bad location is a UsageError naming the form. */
function clusterLocation(location: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/([^\s]*[^\s/])$/.exec(location);
  if (!m) throw new UsageError(`--cluster must be s3://BUCKET/PREFIX (a bucket name, then a non-empty key prefix), got "${location}"`);
  return { bucket: m[1], prefix: m[2] };
}

const MEMBER_FLAGS = ['--cluster-endpoint', '--lease-ttl', '--gc-grace', '--standby', '--cluster-reader', '--cache-bytes'];

export const clusterFeature: Feature<ClusterServing> = {
  name: 'cluster',
  enabled: true,
  flags: [
    {
      name: '--cluster',
      key: 'cluster',
      parse: anyText,
      arg: 's3://BUCKET/PREFIX',
      help: 'cluster mode: the store lives in this object-store bucket and prefix, --data is its local copy; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN, AWS_REGION) (default off)',
    },
    {
      name: '--cluster-endpoint',
      key: 'endpoint',
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
      key: 'reader',
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
  ],
  defaults: { leaseTtlMs: 10_000, gcGraceMs: DEFAULT_GC_GRACE_MS, standby: false, reader: false },
  checkFlags(settings, given) {
    if (settings.cluster === undefined) {
      const stray = MEMBER_FLAGS.find((flag) => given.has(flag));
      if (stray) throw new UsageError(`${stray} needs --cluster s3://BUCKET/PREFIX`);
      return;
    }
    for (const flag of ['--in-memory', '--namespaced', '--at-version', '--read-only'])
      if (given.has(flag))
        throw new UsageError(`--cluster and ${flag} exclude each other${flag === '--read-only' ? ' (a read-only cluster member is --cluster-reader)' : ''}`);
    if (settings.standby && settings.reader) throw new UsageError('--standby waits for the writer lease; a --cluster-reader never takes it');
    if (given.has('--cache-bytes') && !settings.reader && given.has('--history-versions'))
      throw new UsageError("--cache-bytes bounds a writer that keeps no history; --history-versions needs every collection's files");
    if (!settings.endpoint) throw new UsageError('--cluster needs --cluster-endpoint URL, e.g. http://127.0.0.1:7480');
    clusterLocation(settings.cluster as string);
  },
  metrics(registry: Registry, serving) {
    leaseMetrics(registry, () => serving?.node.lease ?? null);
    sweepMetrics(registry, () => serving?.node.garbage ?? null);
    cacheMetrics(registry, () => serving?.node.cache ?? null);
  },
  serve(settings, { open, data }) {
    const location = settings.cluster as string | undefined;
    if (location === undefined) return null;
    const { bucket, prefix } = clusterLocation(location);
    let aws: ReturnType<typeof awsEnvironment>;
    try {
      aws = awsEnvironment();
    } catch (err) {
      throw new UsageError(`--cluster: ${(err as Error).message}`);
    }
    const reader = settings.reader === true;
    const node = new ClusterNode({
      objects: new ObjectStore({ endpoint: settings.endpoint as string, bucket, ...aws }),
      prefix,
      location,
      dir: data,
      reader,
      standby: settings.standby === true,
      leaseTtlMs: settings.leaseTtlMs as number,
      gcGraceMs: settings.gcGraceMs as number,
      ...(settings.cacheBytes !== undefined && { cacheBytes: settings.cacheBytes as number }),
      open,
    });
    return {
      what: `join the cluster store at ${location}`,
      node,
      slot: new ClusterSlot(node),
      routes: (routes) => objectStoreFailures(reader ? routes : durableRoutes(routes, node)),
      hooks: [],
      start: (signal) => node.start(signal),
      close: () => node.close(),
    };
  },
};
