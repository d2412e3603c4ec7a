// `tessera stats`: the store's stats, the JSON GET /stats answers, read without a server.
import { anyText, type FlagSpec, flagHelp, readFlags } from '../flags';
import { command } from './flags';
import { openReader } from './open_store';

interface StatsConfig {
  data: string;
}

interface Flag extends FlagSpec {
  key: keyof StatsConfig;
}

const FLAGS: Flag[] = [{ name: '--data', key: 'data', parse: anyText, arg: 'DIR', help: 'store directory (default ./data); it may be served meanwhile' }];

const STATS_USAGE = `usage: tessera stats [flags]

Prints the store's stats as one line of JSON, as GET /stats answers them: dimension, distance,
collections, footprint, index settings, kernels, features. The store is opened read-only, so it
may be served meanwhile; the figures are those it had made durable.

flags:
${flagHelp(FLAGS, 28)}
`;

function parseStats(args: string[]): StatsConfig {
  const config: StatsConfig = { data: './data' };
  readFlags(args, FLAGS, 'stats', (flag, value) => Object.assign(config, { [flag.key]: value }));
  return config;
}

async function runStats(config: StatsConfig): Promise<void> {
  const store = await openReader(config.data);
  try {
    process.stdout.write(`${JSON.stringify(await store.stats())}\n`);
  } finally {
    await store.close();
  }
}

/** `tessera stats ...`. */
export const statsCommand = command("print the store's stats JSON", STATS_USAGE, parseStats, runStats);
