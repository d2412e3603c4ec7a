// The three jobs a provider does, with the flag that configures each and the variable holding its key.

export type Role = 'embed' | 'summarize' | 'rerank';

/** The server flag (and, camel-cased, the Store.open option) that takes a role's SPEC. */
export const FLAG: Record<Role, string> = {
  embed: '--embed-provider',
  summarize: '--summarize-provider',
  rerank: '--rerank-provider',
};

/** Keys come only from the environment, so they never appear in a SPEC, a flag, an identity or a log line. */
export const KEY_VARIABLE: Record<Role, string> = {
  embed: 'TESSERA_EMBED_API_KEY',
  summarize: 'TESSERA_SUMMARIZE_API_KEY',
  rerank: 'TESSERA_RERANK_API_KEY',
};
