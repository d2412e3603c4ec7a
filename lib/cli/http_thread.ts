// One of `tessera serve`'s other HTTP threads (--http-threads; a worker_threads Worker the leading
// thread starts, serve.ts): the same routes and hooks over the store the leader opened and shares,
// or the way of serving the flags ask for (namespaced tenants, kept by the leader), accepting on
// the leader's port. Its registry counts its own requests and queries; a /metrics it answers is
// the leader's merge of every thread's.
import { workerData } from 'node:worker_threads';
import { OneStore, storeErrorStatus } from '../api';
import { createLogger } from '../http/log';
import { createRegistry } from '../http/metrics';
import { Relay } from '../http/relay';
import type { HttpServer } from '../http/server';
import { HttpThread, type MetricJson } from '../http/threads';
import { type SharedStore, Store } from '../store/store';
import { type HttpThreadData, threadServer, wayOfServing } from './serve';

const { config, threads, active, index, peers } = workerData as HttpThreadData;
const logger = createLogger(config.logLevel).child({ thread: index });
const registry = createRegistry(true);
let server: HttpServer | null = null;
const thread = new HttpThread({
  serve: (shared) => (slot as OneStore).open(Store.adopt(shared as SharedStore)),
  metrics: async () => (await registry.getMetricsAsJSON()) as MetricJson[],
  close: async (graceMs) => {
    await server?.close(graceMs);
    await relay.drain(graceMs);
  },
  abort: () => server?.closeConnections(),
});
const serving = wayOfServing(config, logger, { role: 'worker', ask: (kind, payload) => thread.ask(kind, payload) })?.serving ?? null;
const slot = serving?.slot ?? new OneStore();
const relay = new Relay(index, peers, logger, storeErrorStatus);
const scrape = async () => (await thread.ask('metrics')) as string;
server = threadServer(config, slot, { threads, registry, logger, scrape, active, serving, storeMetrics: false, relay });
void server.listen('join').then(() => thread.listening());
