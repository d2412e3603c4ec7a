// The families beside the core routes, each registering through the Feature contract: its flags of
// `tessera serve`, its routes (behind its build feature where it has one: spec, cross-cutting rule
// 6), its metrics, its way of serving. A family's code lives in its own folder here; a route of a
// family not built answers 404 like any unknown route.
import './extensions';
import { anyText, UsageError } from '../flags';
import { backupRoutes } from './backups/routes';
import { hasFeature } from './built';
import { clusterFeature } from './cluster/feature';
import { codeRoutes } from './code/routes';
import type { Feature } from './feature';
import { mcpRoutes } from './mcp/routes';
import { memoryRoutes } from './memory/routes';
import { namespacesFeature } from './namespaces/feature';
import { sqlRoutes } from './sql/routes';

export type { Feature, FeatureOptions, Serving } from './feature';

/** Every family, built or not: a flag of one not built is refused by its store extension, naming the build feature. */
export const FAMILIES: readonly Feature[] = [
  namespacesFeature,
  clusterFeature,
  {
    name: 'memory',
    enabled: hasFeature('memory'),
    flags: [
      {
        name: '--embed-provider',
        key: 'embedProvider',
        option: 'embedProvider',
        parse: anyText,
        arg: 'SPEC',
        help: 'embedder of remember/recall: hash:DIM (offline, lexical), openai:MODEL@URL, ollama:MODEL@URL, tei@URL (README "Providers"; default none)',
      },
      {
        name: '--summarize-provider',
        key: 'summarizeProvider',
        option: 'summarizeProvider',
        parse: anyText,
        arg: 'SPEC',
        help: "summarizer of remember's summarize mode: extractive[:N] (offline), openai:MODEL@URL, ollama:MODEL@URL (default none)",
      },
    ],
    routes: memoryRoutes,
  },
  {
    name: 'rerank',
    enabled: hasFeature('rerank'),
    flags: [
      {
        name: '--rerank-provider',
        key: 'rerankProvider',
        option: 'rerankProvider',
        parse: anyText,
        arg: 'SPEC',
        help: 'cross-encoder of rerank: cohere:MODEL@URL, jina:MODEL@URL, tei@URL (default none)',
      },
    ],
  },
  { name: 'mcp', enabled: hasFeature('mcp'), routes: mcpRoutes },
  { name: 'code', enabled: hasFeature('code'), routes: codeRoutes },
  { name: 'sql', enabled: true, routes: (slot, { queries }) => sqlRoutes(slot, queries) },
  {
    name: 'backups',
    enabled: true,
    flags: [
      {
        name: '--backup-to',
        key: 'backupTo',
        option: 'backupTo',
        parse: anyText,
        arg: 'DIR|s3://B/P',
        help: 'backup target of POST/GET/DELETE /backups (a directory, or an object store bucket and prefix); `tessera restore` reads it (default none)',
      },
      {
        name: '--backup-endpoint',
        key: 'backupEndpoint',
        option: 'backupEndpoint',
        parse: anyText,
        arg: 'URL',
        help: 'with --backup-to s3://B/P: the S3-compatible endpoint, path-style; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (default none)',
      },
    ],
    checkFlags(_settings, given) {
      if (!given.has('--backup-to')) return;
      for (const flag of ['--in-memory', '--cluster'])
        if (given.has(flag))
          throw new UsageError(
            `--backup-to and ${flag} exclude each other (${flag === '--in-memory' ? 'an in-memory store has no files' : "cluster mode's object store is the live copy"})`,
          );
    },
    routes: backupRoutes,
  },
];

/** The families this package has; apiRoutes mounts their routes. */
export const FEATURES: readonly Feature[] = FAMILIES.filter((f) => f.enabled);
