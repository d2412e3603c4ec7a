// A TCP proxy in front of a server that injects the faults a network gives: every connection
// refused, requests stalled (nothing forwarded until told), or the next answer dropped after the
// request landed. Cluster tests put it between a member and radosgw.
import { once } from 'node:events';
import * as net from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'stall';

export interface FaultProxy {
  port: number;
  /** `refuse` also cuts the connections open now; leaving `stall` forwards what was held. */
  mode: ProxyMode;
  /** Drops the next answer: the request lands, the client never learns. */
  dropNext: boolean;
  close(): void;
}

export async function faultProxy(port: number): Promise<FaultProxy> {
  const sockets = new Set<net.Socket>();
  const held: (() => void)[] = [];
  let mode: ProxyMode = 'pass';
  const server = net.createServer((client) => {
    if (mode === 'refuse') return void client.destroy();
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (d) => {
      if (mode === 'stall') held.push(() => upstream.write(d));
      else upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (proxy.dropNext) {
        proxy.dropNext = false;
        closeBoth();
      } else client.write(d);
    });
    for (const s of [client, upstream]) s.on('error', closeBoth).on('close', closeBoth);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const proxy: FaultProxy = {
    port: (server.address() as net.AddressInfo).port,
    get mode() {
      return mode;
    },
    set mode(next: ProxyMode) {
      mode = next;
      if (next === 'refuse') for (const s of sockets) s.destroy();
      if (next !== 'stall') for (const send of held.splice(0)) send();
    },
    dropNext: false,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
  return proxy;
}
