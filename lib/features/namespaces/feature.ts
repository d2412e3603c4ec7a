// Namespaced mode as a family: `--namespaced` and `--warm-bytes`, the tenant stores under --data,
// every store route under /ns/{namespace}, and GET /namespaces.
import { mkdirSync } from 'node:fs';
import { size, UsageError } from '../../flags';
import { json } from '../../http/reply';
import { tableRoute } from '../../route_kit/table_route';
import { TenantStores } from '../../store/tenants';
import type { Feature, Serving } from '../feature';
import { Namespaces, namespacedRoutes } from './namespaces';
import { RemoteTenants, type Tenants, answerTenants } from './remote_tenants';

export const namespacesFeature: Feature = {
  name: 'namespaces',
  enabled: true,
  flags: [
    {
      name: '--namespaced',
      key: 'namespaced',
      value: true,
      help: 'serve many tenant stores under --data, one per /ns/{namespace} path prefix, each opened on first use (default off)',
    },
    {
      name: '--warm-bytes',
      key: 'warmBytes',
      parse: size,
      arg: 'SIZE',
      help: 'with --namespaced: open tenant stores whose files add up past SIZE are closed, least recently used first, and reopened on their next request (default 1GiB)',
    },
  ],
  defaults: { namespaced: false, warmBytes: 1024 ** 3 },
  checkFlags(settings, given) {
    if (settings.namespaced) {
      for (const flag of ['--in-memory', '--at-version']) if (given.has(flag)) throw new UsageError(`--namespaced and ${flag} exclude each other`);
    } else if (given.has('--warm-bytes')) {
      throw new UsageError('--warm-bytes bounds the tenant stores of --namespaced; add --namespaced or drop it');
    }
  },
  routes: (slot) => (slot instanceof Namespaces ? [tableRoute('namespaces', async () => json(await slot.namespaces()))] : []),
  serve(settings, { open, data, logger, link }): Serving | null {
    if (!settings.namespaced) return null;
    // Every HTTP thread serves the tenants the leader opens, holds and evicts, once for the process.
    if (link.role === 'worker') return namespacedServing(data, new RemoteTenants(link.ask), async () => {});
    // The root is made (or refused, exit 2) before anything listens.
    try {
      mkdirSync(data, { recursive: true });
    } catch (err) {
      throw new UsageError(`cannot use ${data} as the root of --namespaced stores: ${(err as Error).message}`);
    }
    const tenants = new TenantStores({
      root: data,
      open,
      warmBytes: settings.warmBytes as number,
      onCloseError: (namespace, err) => logger.error({ err, namespace }, 'closing an evicted namespace failed'),
    });
    answerTenants(tenants, link.answers);
    return namespacedServing(data, tenants, () => tenants.closeAll());
  },
};

/** The tenant stores under `data` as served on one HTTP thread; `close` ends what this thread opened. */
function namespacedServing(data: string, tenants: Tenants, close: () => Promise<void>): Serving {
  const slot = new Namespaces(tenants);
  return {
    what: `serve the tenant stores under ${data}`,
    slot,
    routes: (routes) => namespacedRoutes(routes, slot),
    hooks: [slot],
    start: () => null,
    close,
    threads: true,
  };
}
