import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ObjectStore } from '../../lib/features/cluster/object_store';
import type { Credentials } from '../../lib/features/cluster/sigv4';
import type { OptionalTool } from './optional_tools';
import { until } from './until';

// A real single-node Ceph object gateway for the cluster tests and bench: one monitor, one OSD on
// memstore (RAM, nothing on disk but config and logs) and radosgw, booted in a fresh directory
// with its own config, fsid and free ports; no systemd, nothing under /etc. Readiness is waited
// on as events (a daemon's port answering, a command returning), each bounded by one deadline.

export const radosgwTools: readonly OptionalTool[] = ['ceph-mon', 'ceph-osd', 'radosgw', 'ceph', 'ceph-authtool', 'radosgw-admin', 'monmaptool'];

export interface Radosgw {
  endpoint: string;
  credentials: Credentials;
  region: string;
  /** Milliseconds from the first command to the first bucket created. */
  bootMs: number;
  /** The credentials and region as the environment a server (or a bench's process) reads them from. */
  env: NodeJS.ProcessEnv;
  /** A client for `bucket` (not created). */
  store(bucket: string, options?: { credentials?: Credentials; timeoutMs?: number; retries?: number }): ObjectStore;
  /** Stops every daemon and removes the directory. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port free now, below the kernel's ephemeral range. A daemon binds it seconds after it is
 * picked; a port from that range could meanwhile go to another test's port-0 listener or an
 * outgoing connection (radosgw then exited 98, address in use, under a loaded CI run).
 */
async function daemonPort(): Promise<number> {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const low = 10_000;
  const high = Number.isInteger(ephemeralLow) && ephemeralLow > low + 1000 ? ephemeralLow : 32_768;
  for (;;) {
    const port = randomInt(low, high);
    if (await isFree(port)) return port;
  }
}

function config(dir: string, fsid: string, monPort: number, rgwPort: number, memstoreBytes: number): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
ms bind ipv6 = false
keyring = ${dir}/keyring
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
crash dir = ${dir}/crash
mon data = ${dir}/mon/$id
osd data = ${dir}/osd/$id
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
# one OSD: pools of one replica, few placement groups, no warnings about either
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
[client.rgw.gw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
`;
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.setTimeout(2000, () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * Boots mon, OSD and radosgw in a fresh directory and creates an S3 user; rejects (having cleaned
 * up) when it cannot within `timeoutMs`. The OSD keeps up to `memstoreBytes` of objects in RAM.
 */
export async function startRadosgw({ timeoutMs = 90_000, memstoreBytes = 1024 ** 3 } = {}): Promise<Radosgw> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-rgw-'));
  for (const sub of ['mon/a', 'osd/0', 'run', 'log', 'crash']) mkdirSync(path.join(dir, sub), { recursive: true });
  const daemons: ChildProcess[] = [];
  const exitHook = () => {
    for (const d of daemons) d.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', exitHook);
  // SIGKILL, waiting for each exit: the daemons' files are removed next, so nothing needs a clean
  // shutdown, and a daemon slow to honour SIGTERM cannot hold the suite.
  const stop = async () => {
    process.off('exit', exitHook);
    await Promise.all(
      daemons.map(
        (d) =>
          new Promise<void>((resolve) => {
            if (d.exitCode !== null || d.signalCode !== null) return resolve();
            d.once('exit', () => resolve());
            d.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  const conf = path.join(dir, 'ceph.conf');
  const cmd = (file: string, args: string[]) => run(file, ['-c', conf, ...args], { cwd: dir, timeout: Math.max(1000, deadline - Date.now()) });
  const daemon = (file: string, args: string[]) => {
    const out = openSync(path.join(dir, 'log', `${path.basename(file)}.out`), 'a');
    const child = spawn(file, ['-c', conf, '-f', ...args], { cwd: dir, stdio: ['ignore', out, out] });
    daemons.push(child);
    return child;
  };
  try {
    const monPort = await daemonPort();
    let rgwPort = await daemonPort();
    while (rgwPort === monPort) rgwPort = await daemonPort();
    const fsid = randomUUID();
    writeFileSync(conf, config(dir, fsid, monPort, rgwPort, memstoreBytes));
    const keyring = path.join(dir, 'keyring');
    await run('ceph-authtool', ['--create-keyring', keyring, '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *']);
    const keys: [string, string[]][] = [
      ['client.admin', ['mon', 'allow *', 'osd', 'allow *', 'mgr', 'allow *']],
      ['osd.0', ['mon', 'allow profile osd', 'osd', 'allow *', 'mgr', 'allow profile osd']],
      ['client.rgw.gw', ['mon', 'allow rw', 'osd', 'allow rwx', 'mgr', 'allow rw']],
    ];
    for (const [name, caps] of keys) await run('ceph-authtool', [keyring, '--gen-key', '-n', name, ...caps.flatMap((c, i) => (i % 2 ? [c] : ['--cap', c]))]);
    await run('monmaptool', ['--create', '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, '--fsid', fsid, path.join(dir, 'monmap')]);
    await cmd('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', path.join(dir, 'monmap'), '--keyring', keyring]);
    daemon('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    await cmd('ceph', ['--connect-timeout', String(Math.ceil((deadline - Date.now()) / 1000)), 'osd', 'new', osdUuid]);
    await cmd('ceph-osd', ['-i', '0', '--mkfs', '--osd-uuid', osdUuid]);
    daemon('ceph-osd', ['-i', '0']);
    daemon('radosgw', ['-n', 'client.rgw.gw']);
    const credentials = { accessKeyId: randomBytes(10).toString('hex').toUpperCase(), secretAccessKey: randomBytes(20).toString('base64') };
    await cmd('radosgw-admin', [
      'user',
      'create',
      '--uid',
      'tessera',
      '--display-name',
      'tessera tests',
      '--access-key',
      credentials.accessKeyId,
      '--secret-key',
      credentials.secretAccessKey,
    ]);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    const dead = () => daemons.find((d) => d.exitCode !== null || d.signalCode !== null);
    await until(
      async () => {
        const gone = dead();
        if (gone) throw new Error(`radosgw harness: ${gone.spawnfile} exited (${gone.exitCode ?? gone.signalCode}); logs in ${dir}/log`);
        return answers(`${endpoint}/`);
      },
      `radosgw answering at ${endpoint}`,
      deadline - Date.now(),
    );
    const region = 'us-east-1';
    const store: Radosgw['store'] = (bucket, options = {}) =>
      new ObjectStore({ endpoint, bucket, region, credentials: options.credentials ?? credentials, timeoutMs: options.timeoutMs, retries: options.retries });
    // A signed request proves the user works; the first bucket also makes radosgw create its data
    // pools, seconds that would otherwise land on whichever test comes first.
    const first = store('harness-first-bucket');
    await first.createBucket().finally(() => first.close());
    const env = { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey, AWS_REGION: region };
    return { endpoint, credentials, region, bootMs: Date.now() - started, env, store, stop };
  } catch (e) {
    await stop();
    throw new Error(`radosgw did not start: ${(e as Error).message}`);
  }
}
