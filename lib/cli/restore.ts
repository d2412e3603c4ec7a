// `tessera restore`: a backup (POST /backups) back into a new store directory, every file checked
// against the backup's checksums before the directory appears (lib/features/backups/restore.ts).
import { anyText, type FlagSpec, flagHelp, readFlags, UsageError } from '../flags';
import { restoreBackup } from '../features/backups/restore';
import { command } from './flags';

interface RestoreConfig {
  from?: string;
  data?: string;
  endpoint?: string;
}

interface Flag extends FlagSpec {
  key: keyof RestoreConfig;
}

const FLAGS: Flag[] = [
  {
    name: '--from',
    key: 'from',
    parse: anyText,
    arg: 'DIR/NAME|s3://B/P/NAME',
    help: 'the backup: its target (--backup-to of the server that made it), then its name',
  },
  { name: '--data', key: 'data', parse: anyText, arg: 'NEWDIR', help: 'the store directory to create; it must not exist or be empty' },
  {
    name: '--backup-endpoint',
    key: 'endpoint',
    parse: anyText,
    arg: 'URL',
    help: 'with --from s3://...: the S3-compatible endpoint; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY',
  },
];

const RESTORE_USAGE = `usage: tessera restore --from DIR/NAME|s3://BUCKET/PREFIX/NAME --data NEWDIR [flags]

Rebuilds a store directory from a backup, indexes included: \`tessera serve --data NEWDIR\` then
answers what the store answered at the backup's commit version. Every file is checked against the
backup's sizes and checksums first; a damaged or incomplete backup is refused (exit 2) naming the
file, and NEWDIR is created only once the whole backup checked out. Prints one line of JSON:
{restored, commit_version, files, bytes, seconds}.

flags:
${flagHelp(FLAGS, 34)}
`;

function parseRestore(args: string[]): RestoreConfig {
  const config: RestoreConfig = {};
  readFlags(args, FLAGS, 'restore', (flag, value) => Object.assign(config, { [flag.key]: value }));
  if (config.from === undefined) throw new UsageError('restore needs --from DIR/NAME or s3://BUCKET/PREFIX/NAME');
  if (config.data === undefined) throw new UsageError('restore needs --data NEWDIR, the directory to create');
  return config;
}

async function runRestore({ from, data, endpoint }: RestoreConfig): Promise<void> {
  process.stdout.write(`${JSON.stringify(await restoreBackup(from as string, data as string, endpoint))}\n`);
}

/** `tessera restore ...`. */
export const restoreCommand = command('rebuild a store directory from a backup', RESTORE_USAGE, parseRestore, runRestore);
