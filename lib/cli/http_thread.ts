// One of `tessera serve`'s other HTTP threads (--http-threads; a worker_threads Worker the leading
// thread starts, serve.ts): the same routes and hooks over the store the leader opened and shares,
// accepting on the leader's port. Its registry counts its own requests and queries; a /metrics it
// answers is the leader's merge of every thread's.
import { workerData } from 'node:worker_threads';
import { OneStore, storeErrorStatus } from '../api';
import { createLogger } from '../http/log';
import { createRegistry } from '../http/metrics';
import { Relay } from '../http/relay';
import { HttpThread, type MetricJson } from '../http/threads';
import { type SharedStore, Store } from '../store/store';
import { type HttpThreadData, threadServer } from './serve';

const { config, active, index, peers } = workerData as HttpThreadData;
const logger = createLogger(config.logLevel).child({ thread: index });
const relay = new Relay(index, peers, logger, storeErrorStatus);
const registry = createRegistry(true);
const slot = new OneStore();
const server = threadServer(config, slot, { registry, logger, scrape: () => thread.scrape(), active, storeMetrics: false, relay });
const thread = new HttpThread({
  serve: (shared) => slot.open(Store.adopt(shared as SharedStore)),
  metrics: async () => (await registry.getMetricsAsJSON()) as MetricJson[],
  close: (graceMs) => server.close(graceMs),
  abort: () => server.closeConnections(),
});
void server.listen('join').then(() => thread.listening());
